"""Commands the bed runs, behind one seam (unit tests give a fake)."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from saphira.devtools.testbed.errors import TestbedError

TIMEOUT = 120.0


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str


class Runner(Protocol):
    def run(self, argv: Sequence[str], check: bool = True, timeout: float = TIMEOUT) -> Result:
        """Run ``argv`` (at most ``timeout`` s); with ``check``, a non-zero exit raises."""
        ...


def failed(argv: Sequence[str], result: Result) -> TestbedError:
    why = result.err.strip() or result.out.strip() or "no output"
    return TestbedError(detail=f"{' '.join(argv)} exited with status {result.code}: {why}")


class SystemRunner:
    """Runs each command to its end, its output captured (never a shell)."""

    def run(self, argv: Sequence[str], check: bool = True, timeout: float = TIMEOUT) -> Result:
        try:
            done = subprocess.run(
                list(argv), capture_output=True, text=True, timeout=timeout, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise TestbedError(detail=f"{' '.join(argv)}: {error}") from None
        result = Result(done.returncode, done.stdout, done.stderr)
        if check and result.code != 0:
            raise failed(argv, result)
        return result
