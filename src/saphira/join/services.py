"""The node's long-running services: what runs, as whom, and whether it runs now.

A ``Service`` is a name and a command line (with its ``--config-file``
flags: a correct file the process never reads still gives empty bridge
mappings). Where systemd is PID 1 they become units (``units``); elsewhere
the project's supervisor (``supervisor``) runs them from ``services.json``
and records each one's PID in ``<state>/run/<name>.pid``. ``running`` reads
that record and ``/proc``, so ``--check`` asks without changing anything.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

COMPUTE = "saphira-compute"
NETWORK_AGENT = "saphira-network-agent"
SUPERVISOR = "supervisor"


@dataclass(frozen=True)
class Service:
    name: str
    argv: tuple[str, ...]
    user: str = "saphira"


def command(name: str) -> str:
    """The entry point's path: beside this interpreter (a venv), else on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    return shutil.which(name) or f"/usr/local/bin/{name}"


def node_services(
    conf_dir: Path, agent_conf: Path, user: str, programs: Mapping[str, str] | None = None
) -> tuple[Service, ...]:
    """The compute agent and the network agents; ``programs`` replaces an entry point
    (tests run stand-ins where the real agent cannot run)."""
    conf, chosen = conf_dir / "saphira.conf", programs or {}
    return (
        Service(COMPUTE, (chosen.get(COMPUTE) or command(COMPUTE), "--config-file", str(conf)),
                user),
        Service(NETWORK_AGENT, (chosen.get(NETWORK_AGENT) or command(NETWORK_AGENT),
                                "--config-file", str(conf), "--config-file", str(agent_conf)),
                user),
    )  # fmt: skip


def dumps(services: Sequence[Service]) -> str:
    items = [{"name": s.name, "argv": list(s.argv), "user": s.user} for s in services]
    return json.dumps(items, indent=2) + "\n"


def loads(text: str) -> tuple[Service, ...]:
    return tuple(
        Service(str(i["name"]), tuple(str(a) for a in i["argv"]), str(i["user"]))
        for i in json.loads(text)
    )


def pid_file(state_dir: Path, name: str) -> Path:
    return state_dir / "run" / f"{name}.pid"


def log_file(state_dir: Path, name: str) -> Path:
    return state_dir / "log" / f"{name}.log"


def running(state_dir: Path, name: str, proc: Path = Path("/proc")) -> int | None:
    """The PID of ``name`` if its record names a live process, else None."""
    try:
        pid = int(pid_file(state_dir, name).read_text().split()[0])
        stat = (proc / str(pid) / "stat").read_text()
    except (OSError, ValueError, IndexError):
        return None
    state = stat.rsplit(")", 1)[-1].split()[0]
    return None if state in ("Z", "X") else pid


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
