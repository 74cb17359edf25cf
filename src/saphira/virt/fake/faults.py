"""Fault injection for the fake driver: make named operations fail on named
hosts or instances, always or for the next N calls.

One injector is shared by every simulated hypervisor of a process, so a test
(or an operator through [fake_driver] fail_*_hosts) can say "spawn fails on
host-a" and watch the conductor reschedule to host-b. Deterministic: rules
are checked in the order they were added.
"""

from __future__ import annotations

import dataclasses
import threading

from oslo_config import cfg

from saphira.virt.errors import InjectedFault

OPERATIONS = frozenset(
    {
        "spawn", "destroy", "power_off", "power_on", "reboot", "rebuild", "pause", "unpause",
        "suspend", "resume", "snapshot", "migrate_disk_and_power_off", "finish_migration",
        "confirm_migration", "finish_revert_migration", "get_info", "attach_interface",
        "detach_interface",
    }
)  # fmt: skip


@dataclasses.dataclass
class _Rule:
    operation: str
    hosts: frozenset[str]
    instances: frozenset[str]
    remaining: int | None
    reason: str

    def matches(self, operation: str, host: str, instance: str, uuid: str) -> bool:
        return (
            self.operation == operation
            and (not self.hosts or host in self.hosts)
            and (not self.instances or bool({instance, uuid} & self.instances))
        )


class FaultInjector:
    def __init__(self) -> None:
        self._rules: list[_Rule] = []
        self._lock = threading.Lock()
        self.injected: list[tuple[str, str, str]] = []  # (operation, host, instance)

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> FaultInjector:
        injector = cls()
        group = conf.fake_driver
        for operation, hosts in (
            ("spawn", group.fail_spawn_hosts),
            ("destroy", group.fail_destroy_hosts),
            ("power_off", group.fail_power_off_hosts),
        ):
            if hosts:
                injector.fail(operation, hosts=hosts, reason="[fake_driver] configuration")
        return injector

    def fail(
        self,
        operation: str,
        *,
        hosts: tuple[str, ...] | list[str] = (),
        instances: tuple[str, ...] | list[str] = (),
        times: int | None = None,
        reason: str = "injected",
    ) -> None:
        """Fail ``operation`` where hosts/instances (name, display name or uuid;
        empty = any) match, ``times`` times or forever."""
        if operation not in OPERATIONS:
            raise ValueError(f"unknown operation {operation!r}")
        rule = _Rule(operation, frozenset(hosts), frozenset(instances), times, reason)
        with self._lock:
            self._rules.append(rule)

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()

    def check(self, operation: str, host: str, instance: str = "", uuid: str = "") -> None:
        """Raise InjectedFault if a rule matches (using up one of its ``times``)."""
        with self._lock:
            for rule in self._rules:
                if rule.matches(operation, host, instance, uuid):
                    if rule.remaining is not None:
                        rule.remaining -= 1
                        if rule.remaining == 0:
                            self._rules.remove(rule)
                    self.injected.append((operation, host, uuid or instance))
                    raise InjectedFault(
                        f"Injected fault: {operation} of {instance or uuid} on {host}: "
                        f"{rule.reason}",
                        operation=operation,
                        name=instance or uuid,
                        host=host,
                    )
