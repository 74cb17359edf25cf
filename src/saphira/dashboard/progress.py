"""Where a long action is: its current step out of the steps the domain's table lists.

Every task_state is a step of exactly one action (``saphira.domain.table.OWNER``),
so a server's task_state alone says what runs and how far it has come: a build
walks scheduling, block device mapping, networking, spawning; a resize its four
steps; a snapshot its four image steps.
"""

from __future__ import annotations

from dataclasses import dataclass

from saphira.domain.states import TaskState
from saphira.domain.table import OWNER, Action
from saphira.domain.transitions import rule

_DOING = {
    Action.BUILD: "Building", Action.RESIZE: "Resizing", Action.CREATE_IMAGE: "Snapshotting",
    Action.REBUILD: "Rebuilding", Action.CONFIRM_RESIZE: "Confirming the resize",
    Action.REVERT_RESIZE: "Reverting the resize", Action.DELETE: "Deleting",
    Action.START: "Starting", Action.STOP: "Shutting off", Action.REBOOT_SOFT: "Rebooting",
    Action.REBOOT_HARD: "Rebooting (hard)", Action.PAUSE: "Pausing", Action.UNPAUSE: "Unpausing",
    Action.SUSPEND: "Suspending", Action.RESUME: "Resuming",
}  # fmt: skip


@dataclass(frozen=True)
class Step:
    doing: str  # "Resizing"
    number: int  # 1-based
    of: int
    name: str  # the task_state in words: "resize migrating"

    @property
    def words(self) -> str:
        return f"{self.doing}: step {self.number} of {self.of} ({self.name})"


def step_of(task_state: str | None) -> Step | None:
    """The step ``task_state`` is; None when idle or for a task the domain does not know."""
    try:
        task = TaskState(task_state or "")
    except ValueError:
        return None
    action = OWNER.get(task)
    if action is None:
        return None
    steps = rule(action).steps
    doing = _DOING.get(action, action.value.replace("_", " ").capitalize())
    words = task.value.replace("_", " ").replace("-", " ")
    return Step(doing, steps.index(task) + 1, len(steps), words)
