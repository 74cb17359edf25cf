"""The lock of ``saphira up``: held while the cloud runs, gone with its holder."""

from __future__ import annotations

import os
from pathlib import Path

from saphira.service import uplock


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
