"""A fake command runner: answers programmed by the command's first words, every call kept."""

from __future__ import annotations

from collections.abc import Sequence

from saphira.devtools.testbed.runner import TIMEOUT, Result, failed


class FakeRunner:
    def __init__(self, answers: dict[tuple[str, ...], Result] | None = None) -> None:
        self.answers = answers or {}
        self.calls: list[list[str]] = []

    def run(self, argv: Sequence[str], check: bool = True, timeout: float = TIMEOUT) -> Result:
        self.calls.append(list(argv))
        for length in range(len(argv), 0, -1):
            found = self.answers.get(tuple(argv[:length]))
            if found is not None:
                if check and found.code != 0:
                    raise failed(argv, found)
                return found
        return Result(0, "", "")
