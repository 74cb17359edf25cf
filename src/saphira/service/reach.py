"""Can the service user reach what it runs from? If not, grant it search permission.

After the drop the services still import modules lazily, read their
packages' metadata and find their state directory, so the interpreter, every
``sys.path`` entry and the state directory must be reachable by the service
user. A checkout under ``/root`` (mode 0700 on Debian) or a test's
``/tmp/pytest-of-root`` is not. What blocks is found by asking the kernel
(``access(2)`` in a child running as the account, so ACLs count), and
each blocking directory gets one POSIX ACL entry, search only
(``setfacl -m u:NAME:x``): the account may pass through, not list or read,
and nobody else gains anything. What was granted is returned, so ``saphira
up`` can say it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

SEARCH_ONLY = "x"
PATH = "/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True)
class Account:
    """A system user the services run as: its ids and supplementary groups."""

    name: str
    uid: int
    gid: int
    groups: tuple[int, ...]


class ReachError(Exception):
    """A directory the account cannot reach and that could not be granted."""


def needed(*also: str) -> list[Path]:
    """What the services read after the drop: the interpreter, the import path, ``also``."""
    paths = [Path(sys.executable), Path(sys.executable).resolve(), *map(Path, also)]
    paths += [Path(entry) for entry in sys.path if entry and os.path.isdir(entry)]
    return paths


def ways(paths: Iterable[Path]) -> list[Path]:
    """Every directory on the way to each path (the path itself when a directory), once."""
    seen: dict[Path, None] = {}
    for path in paths:
        absolute = Path(os.path.abspath(path))
        chain = [*reversed(absolute.parents), *([absolute] if absolute.is_dir() else [])]
        for directory in chain:
            seen.setdefault(directory, None)
    return list(seen)


def run_as(account: Account, argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    """``argv`` run as the account (its groups too), its output captured; never raises."""
    try:
        return subprocess.run(
            argv, capture_output=True, text=True, timeout=60, cwd="/", env={"PATH": PATH},
            user=account.uid, group=account.gid, extra_groups=list(account.groups),
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as error:
        return subprocess.CompletedProcess(list(argv), 127, "", str(error))


def _refused(account: Account, paths: Sequence[Path], test: str) -> list[Path]:
    """The paths GNU find's ``test`` (``-executable``, ``-readable``) fails for, as the account.

    find asks ``access(2)``; a path it cannot even reach is not printed either.
    """
    if not paths:
        return []
    done = run_as(account, ["find", *map(str, paths), "-maxdepth", "0", test, "-print0"])
    if done.returncode == 127:
        raise ReachError(f"could not check what user {account.name} can reach: {done.stderr}")
    allowed = set(done.stdout.split("\0"))
    return [path for path in paths if str(path) not in allowed]


def blocked(account: Account, directories: Sequence[Path]) -> list[Path]:
    """The directories the account cannot search: the kernel's answer, ACLs included."""
    return _refused(account, directories, "-executable")


def unreadable(account: Account, files: Sequence[Path]) -> list[Path]:
    """The files the account cannot read."""
    return _refused(account, files, "-readable")


def grant(account: Account, directories: Sequence[Path]) -> None:
    """One ACL entry each: the account may search the directory, nothing more."""
    for directory in directories:
        argv = ["setfacl", "-m", f"u:{account.name}:{SEARCH_ONLY}", str(directory)]
        try:
            subprocess.run(argv, capture_output=True, text=True, check=True, timeout=30)
        except FileNotFoundError:
            raise ReachError(
                f"user {account.name} cannot reach {directory}, and setfacl (Debian's acl "
                "package) is missing to grant it: install acl, make the directory "
                "searchable (chmod o+x), or keep root with --user root"
            ) from None
        except (OSError, subprocess.SubprocessError) as error:
            detail = str(getattr(error, "stderr", None) or error).strip()
            what = f"cannot grant {account.name} search on {directory}: {detail}"
            raise ReachError(what) from None


def ensure(account: Account, paths: Iterable[Path]) -> list[Path]:
    """Make every path reachable by the account; the directories that needed a grant.

    Below a directory the account cannot search, nothing is searchable for
    it, so only the topmost blocked directories are granted each round and
    the check is asked again.
    """
    directories = ways(paths)
    granted: list[Path] = []
    while missing := blocked(account, directories):
        topmost = [d for d in missing if d.parent not in missing or d.parent == d]
        if any(d in granted for d in topmost):
            raise ReachError(
                f"user {account.name} still cannot reach {', '.join(map(str, topmost))} "
                "after the grant (a filesystem without ACLs?)"
            )
        grant(account, topmost)
        granted += topmost
    return granted
