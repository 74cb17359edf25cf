"""Instance files: console tails and whether QEMU's user can reach a directory."""

from __future__ import annotations

import pwd
from pathlib import Path

import pytest

from saphira.virt.libvirt.paths import blocking_ancestor, console_tail, make_reachable_dir

QEMU_USER_MISSING = "no-such-user-for-saphira"


def test_console_tail_drops_the_partial_first_line(tmp_path: Path) -> None:
    log = tmp_path / "console.log"
    log.write_bytes(b"first line\r\nsecond line\r\nthird\r\n")
    assert console_tail(log, 1000) == "first line\nsecond line\nthird\n"
    assert console_tail(log, 12) == "third\n"
    assert console_tail(tmp_path / "missing.log", 100) == ""


def _qemu_user() -> str:
    try:
        return pwd.getpwnam("libvirt-qemu").pw_name
    except KeyError:
        pytest.fail("libvirt-qemu user missing: the test command installs libvirt")


def test_a_private_ancestor_is_named(tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    private.chmod(0o700)
    inside = private / "instances"
    make_reachable_dir(inside)
    assert inside.stat().st_mode & 0o011 == 0o011
    blocked = blocking_ancestor(inside / "x", _qemu_user())
    assert blocked is not None
    assert blocked in (private, *private.parents)


def test_an_open_path_or_an_unknown_user_blocks_nothing(tmp_path: Path) -> None:
    assert blocking_ancestor(Path("/usr/share/x"), _qemu_user()) is None
    assert blocking_ancestor(tmp_path / "x", QEMU_USER_MISSING) is None
