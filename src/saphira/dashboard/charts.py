"""A share of a whole, as the pages' bar charts draw it (``templates/_bar.html``)."""

from __future__ import annotations


def percent(used: int, whole: int) -> int:
    """``used`` of ``whole``, 0 to 100: over the whole shows full, and so does any use of
    a whole of 0 (a negative whole, no limit, shows nothing)."""
    if whole < 0:
        return 0
    if whole == 0:
        return 100 if used else 0
    return min(100, round(100 * used / whole))


def level(used: int, whole: int) -> str:
    """The bar's colour class: "full" at or over the whole (a whole of 0 is full), "high"
    from 80 %, else "ok"; "ok" with no whole (negative: no limit)."""
    if whole >= 0 and used >= whole:
        return "full"
    return "high" if percent(used, whole) >= 80 else "ok"
