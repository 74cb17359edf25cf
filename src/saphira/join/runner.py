"""How the tool runs commands: one seam, so a test can prove what is only read.

``Runner`` runs an argv and returns its exit status and output. ``ReadOnly``
wraps another runner and refuses every command that is not on its list of
reads (``ip ... show/get``, ``lsblk``, ``uname``, ``ovs-vsctl`` queries,
``visudo -c``...), so ``--facts`` and ``--check`` provably change nothing.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from saphira.exception import JoinRefused

TIMEOUT = 30.0
_IP_READS = frozenset({"show", "list", "get", "lst", "ls"})
_OVS_READS = frozenset({"show", "br-exists", "list-ports", "list-br", "port-to-br", "iface-to-br"})


@dataclass(frozen=True)
class Done:
    returncode: int
    stdout: str = ""
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def output(self) -> str:
        return (self.stderr or self.stdout).strip()


class Runner(Protocol):
    def run(self, argv: Sequence[str]) -> Done: ...


class Subprocess:
    """The real machine: a missing binary is exit status 127, as in a shell."""

    def run(self, argv: Sequence[str]) -> Done:
        try:
            done = subprocess.run(
                list(argv), capture_output=True, text=True, timeout=TIMEOUT, check=False
            )
        except FileNotFoundError:
            return Done(127, "", f"{argv[0]}: command not found")
        except subprocess.TimeoutExpired:
            return Done(124, "", f"{' '.join(argv)}: no answer within {TIMEOUT:g} s")
        return Done(done.returncode, done.stdout, done.stderr)


def is_read(argv: Sequence[str]) -> bool:
    """Whether argv only reads the machine."""
    if not argv:
        return False
    name, words = argv[0].rsplit("/", 1)[-1], [a for a in argv[1:] if not a.startswith("-")]
    if name in ("uname", "lsblk", "pgrep", "id") or (name, *argv[1:]) == ("ovs-dpctl", "show"):
        return True
    if name == "ip":
        return len(words) >= 1 and (len(words) == 1 or words[1] in _IP_READS)
    if name == "ovs-vsctl":
        return bool(words) and words[0] in _OVS_READS
    if name == "visudo":
        return "-c" in argv
    if name == "systemctl":
        return bool(words) and words[0] in ("is-active", "is-enabled", "status", "show")
    return False


class ReadOnly:
    """A runner that refuses anything but reads (``--facts``, ``--check``)."""

    def __init__(self, inner: Runner) -> None:
        self.inner = inner

    def run(self, argv: Sequence[str]) -> Done:
        if not is_read(argv):
            raise JoinRefused(f"refused to run {' '.join(argv)!r}: this mode only reads")
        return self.inner.run(argv)
