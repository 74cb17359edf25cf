"""Events a compute agent waits for (Nova's InstanceEvents).

A build registers the ``network-vif-plugged`` event of each port that is not
up yet *before* the guest starts, so an event that arrives while the guest is
still starting is never missed; ``os-server-external-events`` reaches the
agent as ``external_instance_event``, which completes them. Events nobody
waits for are dropped, as Nova drops them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

VIF_PLUGGED = "network-vif-plugged"
Key = tuple[str, str]  # (event name, tag): the tag of a vif event is the port id


@dataclass
class Outcome:
    """What a wait ended with: the keys still missing and those reported failed."""

    missing: list[Key] = field(default_factory=list)
    failed: list[Key] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.missing or self.failed)


class Waiter:
    """The events one instance expects; ``wait`` returns when all came or one failed."""

    def __init__(self, owner: InstanceEvents, instance_uuid: str, keys: Iterable[Key]) -> None:
        self._owner, self.instance_uuid = owner, instance_uuid
        self._missing = set(keys)
        self._failed: list[Key] = []
        self._changed = threading.Condition(owner.lock)

    def wait(self, timeout: float) -> Outcome:
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._missing and not self._failed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(left)
            return Outcome(sorted(self._missing), list(self._failed))

    def close(self) -> None:
        self._owner.forget(self)

    def _complete(self, key: Key, status: str) -> bool:
        """Under the owner's lock."""
        if key not in self._missing:
            return False
        self._missing.discard(key)
        if status == "failed":
            self._failed.append(key)
        self._changed.notify_all()
        return True


class InstanceEvents:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._waiters: dict[str, Waiter] = {}

    def expect(self, instance_uuid: str, keys: Iterable[Key]) -> Waiter:
        waiter = Waiter(self, instance_uuid, keys)
        with self.lock:
            self._waiters[instance_uuid] = waiter
        return waiter

    def forget(self, waiter: Waiter) -> None:
        with self.lock:
            if self._waiters.get(waiter.instance_uuid) is waiter:
                del self._waiters[waiter.instance_uuid]

    def complete(self, instance_uuid: str, name: str, tag: str, status: str) -> bool:
        """Whether someone was waiting for this event (a "failed" status counts)."""
        with self.lock:
            waiter = self._waiters.get(instance_uuid)
            return waiter is not None and waiter._complete((name, tag), status)
