"""Running services as the saphira system user from a test that runs as root."""

from __future__ import annotations

import os
import stat
import sys
import sysconfig
from pathlib import Path

import pytest

from saphira.service import unprivileged

USER = "saphira"


def reachable_python() -> tuple[list[str], str | None]:
    """An interpreter the service user can run, and the PYTHONPATH it needs (None: none).

    The test venv's interpreter may live where only root can go (a pyenv
    under /root); the system python3 of the same version then runs the same
    code from the venv's site-packages (``-S``: without the system's own).
    """
    if all(os.stat(p).st_mode & stat.S_IXOTH for p in Path(sys.executable).resolve().parents):
        return [sys.executable], None
    system = Path(f"/usr/bin/python{sys.version_info[0]}.{sys.version_info[1]}")
    if not system.exists():
        pytest.fail(f"{sys.executable} is not reachable by other users, and there is no {system}")
    source = Path(__file__).resolve().parents[1] / "src"
    return [str(system), "-S"], f"{source}:{sysconfig.get_paths()['purelib']}"


def account() -> unprivileged.Account:
    """The saphira system user, made as ``saphira up --user`` makes it."""
    return unprivileged.ensure_user(USER)


def uid_of(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    return int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children...)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        ppid = next(line for line in status.splitlines() if line.startswith("PPid:"))
        parents[int(entry.name)] = int(ppid.split()[1])
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found
