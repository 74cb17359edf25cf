"""The lock of ``saphira up``: held while the cloud runs, gone with its holder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from saphira.service import uplock
from saphira.service.purge import command


def test_a_held_lock_names_its_holder_and_refuses_a_second_up(tmp_path: Path) -> None:
    assert uplock.holder(str(tmp_path)) is None
    fd = uplock.acquire(str(tmp_path))
    assert isinstance(fd, int)
    try:
        held = uplock.holder(str(tmp_path))
        assert held == uplock.Held(uplock.path_of(str(tmp_path)), os.getpid())
        assert uplock.acquire(str(tmp_path)) == held
    finally:
        os.close(fd)
    assert uplock.holder(str(tmp_path)) is None  # a lock file alone says nothing


def test_purge_refuses_a_running_cloud_and_holds_the_lock_while_it_works(tmp_path: Path) -> None:
    running = uplock.acquire(str(tmp_path))
    assert isinstance(running, int)
    try:
        with pytest.raises(command.PurgeRefused, match=r"is running \(pid \d+ holds it\)"):
            command.lock(str(tmp_path))
    finally:
        os.close(running)
    purging = command.lock(str(tmp_path))
    try:
        assert isinstance(uplock.acquire(str(tmp_path)), uplock.Held)  # no saphira up meanwhile
    finally:
        os.close(purging)
    with pytest.raises(command.PurgeRefused, match="not a directory"):
        command.lock(str(tmp_path / "missing"))
