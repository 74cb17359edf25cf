"""A bed: ``up`` (idempotent), ``down`` (whatever exists, even after a half-failed up),
``status``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from saphira.devtools.testbed import procs
from saphira.devtools.testbed.controller import SERVICES, Controller, reap
from saphira.devtools.testbed.daemons import Daemons
from saphira.devtools.testbed.errors import TestbedError
from saphira.devtools.testbed.join import TIMEOUT as JOIN_TIMEOUT
from saphira.devtools.testbed.join import TOOL, Join, tool_path
from saphira.devtools.testbed.layout import Addresses, Layout
from saphira.devtools.testbed.mounts import is_mount_point
from saphira.devtools.testbed.network import Network
from saphira.devtools.testbed.node import Node
from saphira.devtools.testbed.runner import Runner
from saphira.devtools.testbed.servers import RABBITMQCTL
from saphira.devtools.testbed.state import BedState

OCTETS = range(100, 200)


@dataclass(frozen=True)
class Servers:
    """The controller's database server and RabbitMQ (URLs without a database or vhost)."""

    database: str
    rabbit: str
    rabbitmqctl: tuple[str, ...] = RABBITMQCTL  # the command that manages ``rabbit``


def _used_octets(layout: Layout, runner: Runner) -> set[int]:
    used = set()
    for entry in json.loads(runner.run(["ip", "-j", "-4", "addr"]).out):
        for info in entry.get("addr_info", []):
            parts = str(info.get("local", "")).split(".")
            if parts[0] == "10" and parts[1].isdigit():
                used.add(int(parts[1]))
    for path in layout.run_dir.glob("*.json"):
        other = BedState.load(path)
        if other is not None and other.bed != layout.bed:
            used.add(other.octet)
    return used


def choose_octet(layout: Layout, runner: Runner) -> int:
    """A free 10.x.0.0/24, the same for a name wherever it is free (a hash picks the start)."""
    used = _used_octets(layout, runner)
    start = zlib.crc32(layout.bed.encode()) % len(OCTETS)
    for step in range(len(OCTETS)):
        octet = OCTETS[(start + step) % len(OCTETS)]
        if octet not in used:
            return octet
    raise TestbedError(detail="no free 10.x.0.0/24 between 10.100 and 10.199 for the network")


@dataclass
class Bed:
    layout: Layout
    runner: Runner
    say: Callable[[str], None] = print
    state: BedState | None = field(default=None)
    join_tool: Callable[[], str | None] = tool_path

    def _state(self, backend: str, servers: Servers | None) -> BedState:
        """The bed's state, made and saved first; beds starting at once take turns
        (a lock on the run directory) so two never choose the same network."""
        self.layout.run_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.layout.run_dir, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if self.state is None:
                self.state = BedState.load(self.layout.state_file)
            if self.state is None:
                octet = choose_octet(self.layout, self.runner)
                self.state = BedState(self.layout.bed, octet, list(self.layout.nodes), backend)
            if servers is not None:
                self.state.database_url, self.state.rabbit_url = servers.database, servers.rabbit
                self.state.rabbitmqctl = list(servers.rabbitmqctl)
            self.state.save(self.layout.state_file)
        finally:
            os.close(fd)
        return self.state

    def controller(self, state: BedState) -> Controller | None:
        """The controller, when the bed has servers for one."""
        if not (state.database_url and state.rabbit_url):
            return None
        address = Addresses(state.octet).controller
        return Controller(self.layout, address, self.runner, state.database_url, state.rabbit_url,
                          tuple(state.rabbitmqctl))  # fmt: skip

    def node(self, name: str) -> Node:
        return Node(self.layout, name, self.runner)

    def network(self, state: BedState) -> Network:
        return Network(self.layout, Addresses(state.octet), self.runner)

    def up(self, backend: str = "postgresql", servers: Servers | None = None) -> BedState:
        """Make what is missing: the state file first, then nodes, networks, the controller
        (with ``servers``, or those of an earlier up), the nodes' daemons."""
        state = self._state(backend, servers)
        for name in self.layout.nodes:
            self.node(name).create()
        self.network(state).create()
        controller = self.controller(state)
        if controller is not None:
            controller.up(state)
            self.say(f"controller: {', '.join(SERVICES)} ready on {controller.address}")
        for name in self.layout.nodes:
            for line in Daemons(self.node(name)).start(state):
                self.say(line)
            state.save(self.layout.state_file)
        for name in self.layout.nodes:
            self.join(name)
        return state

    def join(self, name: str) -> None:
        """Run the join tool inside the node with a fresh token; until it is installed, say how."""
        assert self.state is not None
        controller = self.controller(self.state)
        step = Join(self.node(name), Addresses(self.state.octet).controller)
        tool = self.join_tool()
        if tool is None or controller is None:
            why = "no controller" if controller is None else f"{TOOL} is not installed"
            self.say(f"{name}: ready to join ({why}): {' '.join(step.command())}")
            return
        step = Join(step.node, step.controller, controller.join_token())
        self.runner.run(step.command(tool), timeout=JOIN_TIMEOUT)
        self.say(f"{name}: joined")

    def down(self) -> list[str]:
        """Remove everything the bed made, saying what; what could not be removed
        (empty when clean).

        Every step runs whatever an earlier one could not do; the state file
        stays while something is left, so a later ``down`` tries again.
        """
        problems: list[str] = []
        try:
            state = BedState.load(self.layout.state_file)
        except TestbedError as error:
            problems.append(error.message)
            state = None
        state = state or BedState(self.layout.bed, 0, [])
        steps = [partial(self._remove_node, name, state) for name in self.layout.nodes]
        steps += [partial(self._end_controller, state), partial(self._remove_network, state)]
        for step in steps:
            try:
                problems += step()
            except TestbedError as error:
                problems.append(error.message)
        if not problems:
            self.layout.state_file.unlink(missing_ok=True)
        _remove_dirs(self.layout, self.runner)
        return problems

    def _remove_node(self, name: str, state: BedState) -> list[str]:
        """The node's processes (its daemons, agents, guests, DHCP servers and any
        other), then its namespaces (with its DHCP namespaces and taps) and directory."""
        node = self.node(name)
        there = node.exists() or node.netns_path.exists() or node.directory.exists()
        ended = procs.named(node.processes())
        left = Daemons(node).stop(state) if node.exists() else []
        left += node.remove()
        if there:
            self.say(f"removed node {name}: its namespaces and {node.directory}")
        if ended:
            self.say(f"  processes ended: {', '.join(ended)}")
        return [f"{name}: pid {pid} did not end" for pid in left]

    def _end_controller(self, state: BedState) -> list[str]:
        """The controller's processes (and any other the bed started), then its servers' share."""
        running = [s.pid for s in state.started if s.alive()]
        ended = procs.named(running)
        left = procs.end(running)
        reap()
        if ended:
            self.say(f"ended the controller's processes: {', '.join(ended)}")
        controller = self.controller(state)
        if controller is not None:
            controller.down()
            self.say("dropped the controller's databases and RabbitMQ virtual host")
        return [f"pid {pid} did not end" for pid in left]

    def _remove_network(self, state: BedState) -> list[str]:
        network = Network(self.layout, Addresses(state.octet), self.runner)
        links = network.links()
        network.remove()
        if links:
            self.say(f"removed links: {', '.join(links)}")
        return []

    def status(self) -> list[str]:
        state = BedState.load(self.layout.state_file)
        if state is None:
            return [f"bed {self.layout.bed}: down"]
        lines = [f"bed {self.layout.bed}: management {Addresses(state.octet).cidr}, "
                 f"controller {Addresses(state.octet).controller}, {state.backend}"]  # fmt: skip
        for started in state.started:
            alive = "running" if started.alive() else "NOT running"
            lines.append(f"  {started.label}: pid {started.pid} {alive}")
        for index, name in enumerate(self.layout.nodes):
            node = self.node(name)
            where = "up" if node.exists() else "MISSING"
            address, netns = Addresses(state.octet).node(index), self.layout.netns(name)
            count = len(node.processes())
            lines.append(f"  {name}: {where}, {address}, netns {netns}, {count} processes")
            lines.append(f"    enter: {' '.join(node.enter(['bash']))}")
        controller = self.controller(state)
        if controller is not None:
            clouds = controller.directory / "state" / "clouds.yaml"
            lines.append(f"  openstack: OS_CLIENT_CONFIG_FILE={clouds} openstack --os-cloud admin")
        return lines


def _remove_dirs(layout: Layout, runner: Runner) -> None:
    """The bed's directory, then the shared directories once no bed uses them."""
    shutil.rmtree(layout.bed_dir, ignore_errors=True)
    _rmdir(layout.data_dir)
    ns_dir = layout.ns_dir
    if ns_dir.is_dir() and not any(ns_dir.iterdir()):
        if is_mount_point(ns_dir):
            runner.run(["umount", str(ns_dir)])
        _rmdir(ns_dir)
    _rmdir(layout.run_dir)


def _rmdir(path: Path) -> None:
    """Remove ``path`` if it is an empty directory."""
    with contextlib.suppress(OSError):
        path.rmdir()
