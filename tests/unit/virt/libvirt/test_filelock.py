"""The lock file: exclusive between threads although each holder removes it."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from saphira.virt.libvirt.filelock import locked


def test_holders_never_overlap_and_leave_no_lock_file(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    inside: list[int] = []
    overlaps: list[list[int]] = []

    def worker(n: int) -> None:
        for _ in range(25):
            with locked(path):
                inside.append(n)
                if len(inside) > 1:
                    overlaps.append(list(inside))
                time.sleep(0.0005)
                inside.remove(n)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert overlaps == []
    assert not path.exists()


def test_without_waiting_a_held_lock_is_not_taken(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    with locked(path) as held:
        assert held
        with locked(path, wait=False) as again:
            assert not again
        assert path.exists()
    with locked(path, wait=False) as free:
        assert free
