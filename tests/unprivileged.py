"""Running services as the saphira system user from a test that runs as root."""

from __future__ import annotations

from pathlib import Path

from saphira.service import reach, unprivileged

USER = "saphira"


def reachable(*paths: str) -> reach.Account:
    """The saphira user, able to reach this interpreter, its code and ``paths``.

    As ``saphira up`` does for itself before it drops: a search-only ACL
    entry on each directory that blocks (a checkout under /root, pytest's
    0700 temporary directories).
    """
    user = account()
    reach.ensure(user, reach.needed(*paths))
    return user


def account() -> reach.Account:
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
