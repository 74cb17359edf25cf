"""The file a bed keeps (``/run/saphira-testbed/<bed>.json``): what ``down`` reads.

It is written before anything is made and after every step, so a half-failed
``up`` leaves a file naming what exists. Names come from the layout; the file
adds what cannot be derived: the management network's octet, the backend,
and the processes started, by PID with the start time that tells a reused
PID apart.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from saphira.devtools.testbed.errors import TestbedError
from saphira.devtools.testbed.servers import RABBITMQCTL


@dataclass(frozen=True)
class Started:
    """A process the bed started: ``pid`` and its ``start`` time (field 22 of /proc/PID/stat)."""

    label: str
    pid: int
    start: int

    def alive(self, proc: Path = Path("/proc")) -> bool:
        """Still this process, and not a zombie (ended, waiting for its parent to reap it)."""
        fields = _stat(self.pid, proc)
        return fields is not None and fields[0] != "Z" and int(fields[19]) == self.start


def _stat(pid: int, proc: Path) -> list[str] | None:
    """/proc/PID/stat's fields after the command name (state first), or None."""
    try:
        stat = (proc / str(pid) / "stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()


def start_time(pid: int, proc: Path = Path("/proc")) -> int | None:
    fields = _stat(pid, proc)
    return None if fields is None else int(fields[19])


@dataclass
class BedState:
    bed: str
    octet: int
    nodes: list[str]
    backend: str = "postgresql"
    started: list[Started] = field(default_factory=list)
    database_url: str = ""  # the controller's database server (with its password: mode 0600)
    rabbit_url: str = ""
    rabbitmqctl: list[str] = field(default_factory=lambda: list(RABBITMQCTL))  # manages that broker

    def add(self, label: str, pid: int) -> Started:
        begun = start_time(pid)
        if begun is None:
            raise TestbedError(detail=f"{label} (pid {pid}) is not running")
        self.started = [s for s in self.started if s.label != label]
        record = Started(label, pid, begun)
        self.started.append(record)
        return record

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_suffix(".tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(asdict(self), indent=1))
        os.replace(temp, path)

    @classmethod
    def load(cls, path: Path) -> BedState | None:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:
            raise TestbedError(detail=f"{path}: {error}") from None
        return cls(
            bed=str(raw["bed"]), octet=int(raw["octet"]), nodes=[str(n) for n in raw["nodes"]],
            backend=str(raw.get("backend", "postgresql")),
            started=[Started(str(s["label"]), int(s["pid"]), int(s["start"]))
                     for s in raw.get("started", [])],
            database_url=str(raw.get("database_url", "")),
            rabbit_url=str(raw.get("rabbit_url", "")),
            rabbitmqctl=[str(arg) for arg in raw.get("rabbitmqctl", RABBITMQCTL)],
        )  # fmt: skip
