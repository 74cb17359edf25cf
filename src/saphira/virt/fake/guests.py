"""An in-memory guest: power state, size and a console, nothing more."""

from __future__ import annotations

import collections
import dataclasses

from saphira.domain.states import PowerState
from saphira.objects import Flavor


@dataclasses.dataclass
class FakeGuest:
    uuid: str
    name: str
    flavor: Flavor
    image_id: str
    console_lines: int
    power_state: PowerState = PowerState.RUNNING
    boots: int = 0
    vifs: list[str] = dataclasses.field(default_factory=list)
    console: collections.deque[str] = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        self.console = collections.deque(maxlen=self.console_lines)

    def say(self, line: str) -> None:
        self.console.append(line)

    def boot(self) -> None:
        """Deterministic boot lines, like a tiny image's serial console."""
        self.boots += 1
        self.power_state = PowerState.RUNNING
        self.say(f"[fake] boot {self.boots} of {self.name} ({self.uuid}) image {self.image_id}")
        self.say(f"[fake] {self.flavor.vcpus} vCPU, {self.flavor.memory_mb} MB RAM")
        self.say(f"{self.name} login:")
