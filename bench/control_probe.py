"""What the benchmark reads from the all-in-one: its tally and its CPU time."""

from __future__ import annotations

import json
import os
import signal
import time
from collections import Counter
from pathlib import Path

from saphira.common.tally import Counts

WAIT = 30.0


class Probe:
    """Counts written by bench/tallied_up.py on SIGUSR1; CPU time from /proc."""

    def __init__(self, pid: int, tally_file: Path) -> None:
        self.pid, self.path = pid, tally_file

    def counts(self) -> Counts:
        return self.read()[0]

    def read(self) -> tuple[Counts, Counter[str]]:
        """The counts, and the same by what was sent ("rpc_calls conductor.x", ...)."""
        self.path.unlink(missing_ok=True)
        os.kill(self.pid, signal.SIGUSR1)
        deadline = time.monotonic() + WAIT
        while not self.path.exists():
            if time.monotonic() > deadline:
                raise RuntimeError(f"no tally in {self.path} {WAIT:.0f} s after SIGUSR1")
            time.sleep(0.005)
        read = json.loads(self.path.read_text())
        return Counts(**read["counts"]), Counter(read["details"])

    def cpu_seconds(self) -> float:
        """User plus system time of every thread of the process so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
