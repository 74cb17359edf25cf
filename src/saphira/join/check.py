"""``--check``: a joined node verified, read-only, one PASS/FAIL line each with the fix.

Every command goes through ``runner.ReadOnly`` and nothing is written: the
configuration is parsed as the services parse it, the services' records
and libvirt's pidfiles are read, the bridge's ports listed, the sudoers
file checked in place with ``visudo -c -f``, KVM probed again, and the
controller asked for its view (the agents' *live* bridge mappings). Each
failure names the guide's pitfall it causes. The exit code is 0 only when
every line passed.
"""

from __future__ import annotations

import configparser
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from saphira import conf as saphira_conf
from saphira.exception import SaphiraError
from saphira.join import bridge, probes, sudoers
from saphira.join import services as svc
from saphira.join.controller import Controller, Credentials, View
from saphira.join.machine import Machine, guest_dir
from saphira.join.plan import Layout
from saphira.join.runner import ReadOnly, Runner
from saphira.virt import kvm_probe


@dataclass(frozen=True)
class Line:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    pitfall: str = ""

    def text(self) -> str:
        head = f"{'PASS' if self.ok else 'FAIL'} {self.name}: {self.detail}"
        if self.ok:
            return head
        tail = [f"  pitfall: {self.pitfall}"] if self.pitfall else []
        return "\n".join([head, *tail, f"  fix: {self.fix}"])


@dataclass(frozen=True)
class Node:
    """What the check reads from the node's files."""

    compute: configparser.ConfigParser
    record: configparser.SectionProxy  # the join's non-secret answers
    user: str
    probe_guest: str  # --probe-guest of the join, "" for <state>/test-image


def _read(layout: Layout) -> tuple[Node | None, Line]:
    paths = [layout.compute_conf, layout.agent_conf, layout.record]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        return None, Line("configuration", False, f"missing {', '.join(missing)}",
                          "run saphira-openstack-setup-compute to join this host")  # fmt: skip
    try:
        saphira_conf.load([f"--config-file={p}" for p in paths[:2]], default_config_files=[])
    except (SaphiraError, Exception) as error:  # oslo.config's errors have no common base
        return None, Line("configuration", False, f"does not parse: {error}",
                          "fix the value named, or rejoin with --force")  # fmt: skip
    compute = configparser.ConfigParser(interpolation=None)
    compute.read(paths[0])
    record = configparser.ConfigParser(interpolation=None)
    record.read(paths[2])
    ok = Line("configuration", True, f"{paths[0]} and {paths[1]} parse")
    if not record.has_section("join"):
        return None, Line("configuration", False, f"{paths[2]} has no [join] section",
                          "rejoin with --force")  # fmt: skip
    user = record.get("node", "user", fallback="saphira")
    probe = record.get("node", "probe_guest", fallback="")
    return Node(compute, record["join"], user, probe), ok


def _services(layout: Layout, systemd: bool, runner: Runner) -> list[Line]:
    lines = []
    for name, what in ((svc.COMPUTE, "No valid host (the compute service is down)"),
                       (svc.NETWORK_AGENT, "No address or DHCP, PortBindingFailed")):  # fmt: skip
        if systemd:
            running = runner.run(["systemctl", "is-active", "--quiet", name]).ok
            where = f"journalctl -u {name} -b --no-pager"
        else:
            running = svc.running(layout.state, name) is not None
            where = str(svc.log_file(layout.state, name))
        lines.append(Line(name, running, "running" if running else "not running",
                          f"read {where}, then rerun the join (it starts what is missing)",
                          what))  # fmt: skip
    return lines


def _main_pid(layout: Layout, systemd: bool, runner: Runner, name: str) -> int | None:
    if not systemd:
        return svc.running(layout.state, name)
    done = runner.run(["systemctl", "show", "--property=MainPID", "--value", name])
    pid = done.stdout.strip()
    return int(pid) if done.ok and pid.isdigit() and pid != "0" else None


def _launch_flags(layout: Layout, systemd: bool, machine: Machine, runner: Runner) -> Line:
    """The running agent's own command line names both files (a file it never
    reads still gives empty bridge mappings)."""
    pid = _main_pid(layout, systemd, runner, svc.NETWORK_AGENT)
    name = "network agent's command line"
    if pid is None:
        return Line(name, False, "the agent is not running", "start it (rerun the join)")
    argv = machine.cmdline(pid)
    wanted = [str(layout.compute_conf), str(layout.agent_conf)]
    given = [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--config-file"]
    missing = [path for path in wanted if path not in given]
    return Line(name, not missing,
                f"it does not read {', '.join(missing)}" if missing
                else f"--config-file {' --config-file '.join(wanted)}",
                "rejoin with --force: the unit or services.json must pass both files",
                "Empty bridge mappings: a correct file the process never reads")  # fmt: skip


def _bridge(runner: Runner, record: configparser.SectionProxy) -> Line:
    name, nic = record.get("bridge", ""), record.get("provider_nic", "")
    ports = bridge.ports(runner, name)
    ok = ports is not None and nic in ports
    if ports is None:
        detail = f"{name} does not exist"
    else:
        detail = f"{name} holds {nic}" if ok else f"{name} has {ports or 'no ports'}, not {nic}"
    return Line("bridge", ok, detail, f"ovs-vsctl --may-exist add-port {name} {nic} (or rejoin)",
                "PortBindingFailed: the mapped bridge carries no provider traffic")  # fmt: skip


def _sudoers(runner: Runner, layout: Layout, user: str) -> Line:
    path = layout.sudoers
    fix = f"rejoin with --force to rewrite {path}; never widen it to unrestricted sudo"
    pitfall = "FailedToDropPrivileges or helper exit 1"
    if not path.is_file():
        return Line("sudoers", False, f"{path} is missing", fix, pitfall)
    problem = sudoers.check_file(runner, path)
    if problem is not None:
        return Line("sudoers", False, f"visudo -c: {problem}", fix, pitfall)
    if path.read_text() != sudoers.rule(user):
        return Line("sudoers", False, f"{path} is not the narrow rule the join wrote", fix, pitfall)
    return Line("sudoers", True, f"{path} is valid and narrow")


def _virt(machine: Machine, layout: Layout, configured: str, probe: Path | None) -> Line:
    decision = kvm_probe.decide("auto", lambda: machine.kvm(guest_dir(layout.state, probe)))
    ok = configured == decision.virt_type
    return Line("virt_type", ok, f"[libvirt] virt_type = {configured}; {decision.reason}",
                f"rejoin with --force (it writes virt_type = {decision.virt_type})",
                "Emulator does not support virt type kvm" if configured == "kvm"
                else "guests run under slow emulation though KVM works")  # fmt: skip


def _controller(machine: Machine, runner: Runner, node: Node) -> tuple[list[Line], View | None]:
    c, record = node.compute, node.record
    identity = c.get("keystone_authtoken", "auth_url", fallback="")
    reach = probes.reach(runner, machine.transport, record.get("controller", ""), identity)
    problems = reach.problems(record.get("provider_nic"), record.get("management_nic") or None)
    lines = [Line("controller", not problems, "; ".join(problems) or f"{identity} answers",
                  "fix the route or the controller's identity service first")]  # fmt: skip
    if problems:
        return lines, None
    creds = Credentials(identity, c.get("DEFAULT", "region_name", fallback="RegionOne"),
                        "nova", c.get("keystone_authtoken", "password", fallback=""))  # fmt: skip
    try:
        return lines, Controller(machine.transport, creds).view(c.get("DEFAULT", "host"))
    except SaphiraError as error:
        lines.append(Line("controller view", False, error.message, "check the service user"))
        return lines, None


def _view_lines(view: View, record: configparser.SectionProxy) -> list[Line]:
    mapping = (record.get("physnet", ""), record.get("bridge", ""))
    gaps = view.missing(mapping)
    agents = [g for g in gaps if "agent" in g]
    host = [g for g in gaps if "agent" not in g]
    return [
        Line("controller sees the host", not host, "; ".join(host) or "compute service up, "
             "hypervisor up, placement provider present",
             "saphira-manage cell_v2 discover_hosts --verbose on the controller; "
             "read the compute agent's log", "No valid host"),
        Line("live bridge mapping", not agents, "; ".join(agents) or
             f"an alive agent reports {mapping[0]}:{mapping[1]}",
             "the agent must be started with --config-file of network-agent.conf (rejoin)",
             "Empty bridge mappings or PortBindingFailed"),
    ]  # fmt: skip


def lines(layout: Layout, machine: Machine) -> list[Line]:
    runner = ReadOnly(machine.runner)
    node, first = _read(layout)
    found = [first]
    if node is None:
        return found
    systemd = machine.systemd() and layout.root == Path("/")
    found += _services(layout, systemd, runner)
    found.append(_launch_flags(layout, systemd, machine, runner))
    found += [libvirt_line(machine.libvirt_running)]
    found += [_bridge(runner, node.record), _sudoers(runner, layout, node.user)]
    probe = node.probe_guest
    found.append(_virt(machine, layout, node.compute.get("libvirt", "virt_type", fallback=""),
                       Path(probe) if probe else None))  # fmt: skip
    reach_lines, view = _controller(machine, runner, node)
    return found + reach_lines + (_view_lines(view, node.record) if view else [])


def libvirt_line(running: Callable[[], dict[str, bool]]) -> Line:
    states = running()
    down = [name for name, up in states.items() if not up]
    return Line("libvirt daemons", bool(states) and not down,
                ", ".join(f"{n} {'running' if up else 'NOT running'}" for n, up in states.items())
                or "no libvirt daemon installed",
                "rerun the join (it starts the host's daemon set)",
                "Guest cgroup or virtlogd errors: the complete daemon set must run")  # fmt: skip


def run(layout: Layout, machine: Machine, out: TextIO) -> int:
    found = lines(layout, machine)
    for line in found:
        out.write(line.text() + "\n")
    failed = [line.name for line in found if not line.ok]
    out.write(f"{len(found) - len(failed)} passed, {len(failed)} failed\n")
    return 1 if failed else 0
