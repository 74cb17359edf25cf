"""Bytes in flight: an upload's bytes count against its limits from the moment
they are read until they are stored, so concurrent uploads cannot together pass
a limit that each alone would respect.

A limit is a ``Budget``: a key shared by everything it bounds (a project's
quota, the staging area), the bytes already stored under it (read from the
database under the ledger's lock), and the 413 to raise. A ``Claim`` holds one
upload's bytes against its budgets; it grows before each chunk is written (or
once, up front, when the size is announced) and is released only after the
data is recorded in the database, so a byte is always counted at least once:
in flight, stored, or briefly both. The ledger lives in the image API process;
uploads of one store go through one process.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from saphira.exception import SaphiraError

Refusal = Callable[[int, int], SaphiraError]  # (bytes wanted, bytes remaining) -> the error


@dataclass(frozen=True)
class Budget:
    key: str
    limit: int
    stored: Callable[[], int]
    refuse: Refusal


@dataclass
class Claim:
    ledger: Ledger
    budgets: Sequence[Budget]
    ident: int
    held: int = 0

    def need(self, total: int) -> None:
        """Hold ``total`` bytes (all this upload has or will have); 413 if a budget lacks room."""
        if total > self.held and self.budgets:
            self.ledger.grow(self, total)
        self.held = max(self.held, total)


@dataclass
class Ledger:
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _held: dict[str, dict[int, int]] = field(default_factory=dict)
    _ids: Iterator[int] = field(default_factory=itertools.count)

    @contextmanager
    def claim(self, budgets: Sequence[Budget]) -> Iterator[Claim]:
        claim = Claim(self, budgets, next(self._ids))
        try:
            yield claim
        finally:
            with self._lock:
                for budget in budgets:
                    self._held.get(budget.key, {}).pop(claim.ident, None)

    def grow(self, claim: Claim, total: int) -> None:
        with self._lock:
            for budget in claim.budgets:
                others = self._sum(budget.key) - claim.held
                left = budget.limit - budget.stored() - others
                if total > left:
                    raise budget.refuse(total, max(left, 0))
            for budget in claim.budgets:
                self._held.setdefault(budget.key, {})[claim.ident] = total

    def in_flight(self, key: str) -> int:
        """Bytes held under ``key`` by uploads in progress."""
        with self._lock:
            return self._sum(key)

    def _sum(self, key: str) -> int:
        return sum(self._held.get(key, {}).values())
