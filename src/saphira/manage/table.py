"""Tables drawn as nova-manage draws them (PrettyTable's default style).

Cells are centred the way PrettyTable centres them, so the output lines up
character for character with what operators know from the install guide.
"""

from __future__ import annotations

from collections.abc import Sequence


def _centre(text: str, width: int) -> str:
    excess = width - len(text)
    left = excess // 2
    # PrettyTable puts the odd space on the right of odd-length text, else left.
    if excess % 2 and len(text) % 2 == 0:
        left += 1
    return " " * left + text + " " * (excess - left)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(value) for value in row] for row in rows]
    widths = [len(header) for header in headers]
    for row in cells:
        widths = [max(width, len(value)) for width, value in zip(widths, row, strict=True)]
    border = "+" + "+".join("-" * (width + 2) for width in widths) + "+"

    def line(values: Sequence[str]) -> str:
        parts = (_centre(value, width) for value, width in zip(values, widths, strict=True))
        return "| " + " | ".join(parts) + " |"

    return "\n".join([border, line(headers), border, *map(line, cells), border])
