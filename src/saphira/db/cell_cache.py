"""Which cell an instance lives in, remembered (an instance never changes cells).

Bounded: past ``size`` instances the one used least recently is forgotten.
The directory forgets an instance when its cell no longer has it, so a
deleted or re-created uuid is looked up again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from saphira.db.api.cells import Cell

# Instances whose cell is remembered; the least recently used is forgotten past this many.
SIZE = 4096


class CellCache:
    def __init__(self, size: int = SIZE) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._cells: OrderedDict[str, Cell] = OrderedDict()

    def get(self, instance_uuid: str) -> Cell | None:
        with self._lock:
            found = self._cells.get(instance_uuid)
            if found is not None:
                self._cells.move_to_end(instance_uuid)
            return found

    def remember(self, instance_uuid: str, cell: Cell) -> None:
        with self._lock:
            self._cells[instance_uuid] = cell
            self._cells.move_to_end(instance_uuid)
            while len(self._cells) > self.size:
                self._cells.popitem(last=False)

    def forget(self, instance_uuid: str) -> None:
        with self._lock:
            self._cells.pop(instance_uuid, None)

    def clear(self) -> None:
        with self._lock:
            self._cells.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._cells)
