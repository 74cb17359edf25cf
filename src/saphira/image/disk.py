"""The free-space floor: no upload takes a store's filesystem below its reserve.

``os.statvfs`` of the directory written to: ``f_bavail`` (what an unprivileged
writer may use, so the filesystem's own root reserve stays untouched) against
the reserve, a size or a percentage of ``f_blocks``. Checked up front for the
announced size and before every chunk, so the floor holds for uploads of
unknown size too (to within one chunk per concurrent writer).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from saphira.image.quotas import Reserve
from saphira.image.refusals import StorageFull


@dataclass(frozen=True)
class Space:
    available: int
    size: int


def statvfs_space(path: str) -> Space:
    found = os.statvfs(path)
    return Space(found.f_bavail * found.f_frsize, found.f_blocks * found.f_frsize)


@dataclass(frozen=True)
class DiskGuard:
    reserve: Reserve
    space: Callable[[str], Space] = statvfs_space

    def check(self, path: str, incoming: int) -> None:
        """StorageFull (413) if writing ``incoming`` more bytes under ``path`` passes the floor."""
        if self.reserve.size <= 0 and self.reserve.percent <= 0:
            return
        space = self.space(path)
        if space.available - incoming < self.reserve.floor(space.size):
            raise StorageFull()
