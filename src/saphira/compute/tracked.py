"""One tracked action on the agent: its event, its steps, and on error one
report and the undos, newest first.

``Tracked`` is the undo stack: after each step that left something behind (a
placement claim, ports, a guest and its disks, a NIC) the action pushes how to
take it back; ``unwind`` runs those undos in reverse order, and an undo that
fails is logged while the others still run, so one stuck cleanup never leaks
the rest. The build uses the stack alone: its three conductor reports, which
open and close its event, are its own (``compute/build.py``).

``TrackedAction`` is every other action the agent runs (the table's simple
actions, delete, the resize hops, NIC attach and detach), and the only other
code of the agent that opens, closes or fails an action event or writes a
fault (``tests/unit/compute/test_tracked_shape.py`` keeps it so):

* ``run`` opens the event, then does the work, which walks the table row's
  task_states (``advance``, ``walk``) and pushes undos (``done``);
* success: ``finish`` moves the instance to the row's landing state and
  closes the event in one conductor transaction (a hop that lands nowhere
  closes the event alone);
* failure: the undos run newest first, then one conductor call writes where
  the table sends the instance with the fault and the event's Error, in one
  transaction (``instance_fail``: the row's failure state; or a system event
  the action switched to with ``failing_as``, as a resize does once the guest
  was touched). A step-less row (NIC changes) moves no state: its event alone
  is closed as Error, with the traceback.
* a step that loses its compare-and-swap (deleted or overtaken meanwhile)
  undoes and closes the event as Error, with no fault: the instance is
  someone else's now. An instance that is gone has nothing left to record.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from saphira import exception
from saphira.domain.table import TABLE, Action, Event
from saphira.objects import Instance, InstanceFault

if TYPE_CHECKING:
    from saphira.context import RequestContext
    from saphira.domain.states import TaskState
    from saphira.rpc.rpcapi.conductor import ConductorAPI

LOG = logging.getLogger(__name__)
R = TypeVar("R")


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


@dataclass(frozen=True)
class Failed:
    """What ``TrackedAction.run`` returns when the work failed (undone and reported)."""

    error: Exception


class TrackedAction:
    """One agent action on one instance, from its event's opening to its end."""

    def __init__(
        self,
        conductor: ConductorAPI,
        ctxt: RequestContext,
        instance: Instance,
        action: Action,
        event: str,
        host: str,
    ) -> None:
        self.conductor, self.ctxt, self.host = conductor, ctxt, host
        self.instance, self.action, self.event = instance, action, event
        self.undo = Tracked(instance.uuid, action, host)
        self._fails_as: Event | None = None
        self._closed = False

    @property
    def uuid(self) -> str:
        return self.instance.uuid

    # -- what the work calls ------------------------------------------------------
    def done(self, what: str, undo: Callable[[], object]) -> None:
        self.undo.done(what, undo)

    def advance(self, step: TaskState) -> Instance:
        """From task_state ``step`` to the row's next one; the instance as it is now."""
        self.instance = self.conductor.instance_advance(self.ctxt, self.uuid, self.action, step)
        return self.instance

    def walk(self) -> Instance:
        """Through the row's task_states up to its last (the API set the first)."""
        for step in TABLE[self.action].steps[:-1]:
            self.advance(step)
        return self.instance

    def failing_as(self, event: Event) -> None:
        """From here a failure is the table's system ``event`` (say, a resize's
        move_error once the guest was touched), not the row's failure state."""
        self._fails_as = event

    def finish(self, updates: dict[str, Any] | None = None) -> Instance:
        """Success: the row's landing state, ``updates`` and the event closed, in one
        conductor transaction."""
        self.instance = self.conductor.instance_finish(
            self.ctxt, self.uuid, self.action, updates or {}, event=self.event
        )
        self._closed = True
        return self.instance

    # -- the run ----------------------------------------------------------------
    def run(self, work: Callable[[], R]) -> R | Failed:
        """Open the event, do ``work``, close the event; on error undo and report once."""
        try:
            self.conductor.action_event_start(self.ctxt, self.uuid, self.event, self.host)
            result = work()
            if not self._closed:
                self.conductor.action_event_finish(self.ctxt, self.uuid, self.event, "Success")
        except exception.InstanceNotFound as error:
            LOG.info("%s of %s stopped: the instance is gone", self.action, self.uuid)
            self.undo.unwind()
            return Failed(error)
        except exception.InstanceInvalidState as error:
            LOG.info("%s of %s abandoned: %s", self.action, self.uuid, error.message)
            self.undo.unwind()
            self._report(self._close_as_error, error.message, None)
            return Failed(error)
        except Exception as error:
            reason, trace = getattr(error, "message", None) or str(error), traceback.format_exc()
            LOG.warning("%s of %s failed on %s: %s", self.action, self.uuid, self.host, reason)
            self.undo.unwind()
            self._report(self._fail, reason, trace)
            return Failed(error)
        return result

    def _report(
        self, write: Callable[[str, str | None], object], reason: str, trace: str | None
    ) -> None:
        try:
            write(reason, trace)
        except exception.SaphiraError as lost:  # deleted or taken over meanwhile
            LOG.warning("%s of %s: failure not recorded: %s", self.action, self.uuid, lost)

    def _fail(self, reason: str, trace: str | None) -> None:
        """Where the table sends the instance, the fault, the event's Error: one call."""
        if not TABLE[self.action].steps:  # no task in flight: no state to move back
            self._close_as_error(reason, trace)
            return
        fault = InstanceFault(self.uuid, 500, reason, trace or "", self.host)
        if self._fails_as is None:
            self.conductor.instance_fail(self.ctxt, self.uuid, self.action, fault, event=self.event)
            return
        self.conductor.instance_event(
            self.ctxt, self.uuid, self._fails_as, self.instance.vm_state, fault=fault,
            failed_event=self.event,
        )  # fmt: skip

    def _close_as_error(self, reason: str, trace: str | None) -> None:
        self.conductor.action_event_finish(
            self.ctxt, self.uuid, self.event, "Error", details=reason, traceback=trace
        )
