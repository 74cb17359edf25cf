"""One tracked action on the agent: what was done, undone newest first on error.

An action (a build today; resize and others can follow) opens its event
through the conductor, walks its steps, and after each step that left
something behind (a placement claim, ports, a guest and its disks) pushes
how to take it back. On failure ``unwind`` runs those undos in reverse
order; an undo that fails is logged and the others still run, so one stuck
cleanup never leaks the rest. The fault and the event are then recorded by
the action's own failure report (one conductor call).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

LOG = logging.getLogger(__name__)


@dataclass
class Tracked:
    """The undo stack of one action on one instance."""

    instance_uuid: str
    action: str
    host: str
    _undo: list[tuple[str, Callable[[], object]]] = field(default_factory=list)

    def done(self, what: str, undo: Callable[[], object]) -> None:
        """``what`` was done; ``undo`` takes it back."""
        self._undo.append((what, undo))

    def forget(self, what: str) -> None:
        """``what`` is no longer ours to undo (it was handed on)."""
        self._undo = [(name, undo) for name, undo in self._undo if name != what]

    @property
    def steps_done(self) -> list[str]:
        return [name for name, _ in self._undo]

    def unwind(self) -> None:
        """Every undo, newest first; each failure is logged and the next still runs."""
        while self._undo:
            what, undo = self._undo.pop()
            try:
                undo()
            except Exception:
                LOG.exception(
                    "%s of %s on %s: undoing %s failed", self.action, self.instance_uuid,
                    self.host, what,
                )  # fmt: skip
