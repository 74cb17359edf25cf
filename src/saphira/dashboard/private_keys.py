"""Private keys the compute API generated, held until their one download.

Nova gives a generated key pair's private key once, in the create answer (as
Horizon, the dashboard asks for it below microversion 2.92). It is kept here,
under the session that made it, until that session downloads it (``take``:
the entry is gone, its bytes overwritten), the session ends, or ``keep``
seconds pass; a second download finds nothing. Nothing else reads it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Held:
    key: bytearray
    made: float


class PrivateKeys:
    def __init__(self, keep: float = 600.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.keep = keep
        self.clock = clock
        self._table: dict[tuple[str, str], _Held] = {}
        self._lock = threading.Lock()

    def hold(self, session_id: str, name: str, private_key: str) -> None:
        with self._lock:
            self._expire()
            _wipe(self._table.pop((session_id, name), None))
            self._table[(session_id, name)] = _Held(bytearray(private_key.encode()), self.clock())

    def waiting(self, session_id: str, name: str) -> bool:
        with self._lock:
            self._expire()
            return (session_id, name) in self._table

    def take(self, session_id: str, name: str) -> bytes | None:
        """The key's bytes, once; None when taken already, expired or never held."""
        with self._lock:
            self._expire()
            held = self._table.pop((session_id, name), None)
        if held is None:
            return None
        data = bytes(held.key)
        _wipe(held)
        return data

    def drop(self, session_id: str) -> None:
        with self._lock:
            for key in [k for k in self._table if k[0] == session_id]:
                _wipe(self._table.pop(key))

    def __len__(self) -> int:
        return len(self._table)

    def _expire(self) -> None:
        now = self.clock()
        for key in [k for k, h in self._table.items() if now - h.made > self.keep]:
            _wipe(self._table.pop(key))


def _wipe(held: _Held | None) -> None:
    if held is not None:
        held.key[:] = bytes(len(held.key))
