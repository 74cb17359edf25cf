"""The join, step by step: facts, answers, checks, files, services, bridge, agents.

Nothing is written before ``plan.preflight`` passed and the sudoers text
passed ``visudo -c``. Every step is idempotent: files already right are
left alone (mtime included), ``--may-exist`` for OVS, daemons and the
supervisor started only when not running; so a second run after a failure
finishes the job and a second run on a joined node changes nothing.
"""

from __future__ import annotations

import os
import pwd
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from saphira.exception import JoinRefused
from saphira.join import bridge, facts, plan, probes, render, screen, sudoers, units, writer
from saphira.join import services as svc
from saphira.join.answers import Answers
from saphira.join.machine import Machine
from saphira.join.runner import ReadOnly
from saphira.virt import kvm_probe

ACTIVE_TIMEOUT = 15.0


@dataclass(frozen=True)
class Options:
    layout: plan.Layout
    force: bool = False
    allow_default_route_nic: bool = False
    user: str = "saphira"
    compute_driver: str = "libvirt.LibvirtDriver"
    programs: Mapping[str, str] = field(default_factory=dict)  # stand-ins (tests)
    probe_guest: Path | None = None  # --probe-guest


def say(out: TextIO, lines: list[str]) -> None:
    for line in lines:
        out.write(f"{line}\n")
    out.flush()


Survey = tuple[facts.Facts, kvm_probe.VirtTypeDecision]


def survey(machine: Machine, guest: Path) -> Survey:
    """The read-only facts and the virt type the probe proves (``--facts``)."""
    found = facts.gather(ReadOnly(machine.runner))
    virt = kvm_probe.decide("auto", lambda: machine.kvm(guest))
    return found, virt


def _owner(user: str) -> tuple[int, int] | None:
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def _prepare_dirs(options: Options, machine: Machine) -> None:
    """The state dir (the services' own) and the lock dir; the config dir readable by them."""
    layout, owner = options.layout, _owner(options.user)
    for path in (layout.state, layout.state / "tmp", layout.state / "run", layout.state / "log"):
        path.mkdir(parents=True, exist_ok=True)
        if owner and machine.euid() == 0 and path.stat().st_uid != owner[0]:
            os.chown(path, *owner)
    layout.conf_dir.mkdir(parents=True, exist_ok=True)


def _share_conf(options: Options, machine: Machine, paths: list[Path]) -> None:
    """root:<user> 0640, so the services read the files root wrote."""
    owner = _owner(options.user)
    if owner is None or machine.euid() != 0:
        return
    for path in paths:
        if path.stat().st_gid != owner[1]:
            os.chown(path, 0, owner[1])


def write_files(
    planned: list[writer.Planned], options: Options, machine: Machine, out: TextIO
) -> list[writer.Outcome]:
    """Validate the sudoers text, show --force's diffs, then write."""
    problem = sudoers.check_text(machine.runner, sudoers.rule(options.user))
    if problem is not None:
        raise JoinRefused(reason=f"the sudoers rule fails visudo -c: {problem} (nothing written)")
    before = [writer.inspect(p) for p in planned]
    if options.force:
        for outcome in before:
            if outcome.action == "kept":
                say(out, [f"--force replaces {outcome.path}:", outcome.diff.rstrip("\n")])
    _prepare_dirs(options, machine)
    outcomes = writer.apply_all(planned, options.force)
    conf_files = [p.path for p in planned if p.path.parent == options.layout.conf_dir]
    _share_conf(options, machine, conf_files)
    return outcomes


def start_services(
    services: tuple[svc.Service, ...], outcomes: list[writer.Outcome], options: Options,
    machine: Machine, systemd: bool,
) -> list[str]:  # fmt: skip
    names = [f"{s.name}.service" for s in services]
    if systemd:
        _systemctl(machine, ["daemon-reload"])
        _systemctl(machine, ["enable", "--now", *names])
        return [f"systemd: enabled and started {', '.join(names)}"]
    layout = options.layout
    changed = any(o.path == layout.services_file and o.action == "replaced" for o in outcomes)
    if changed and machine.stop_supervisor(layout.state):
        lines = ["supervisor: stopped (its services changed)"]
    else:
        lines = []
    pid = machine.start_supervisor(layout.state, layout.services_file)
    lines.append(f"supervisor: started (pid {pid})" if pid else "supervisor: already running")
    return lines


def reload_units(machine: Machine, outcomes: list[writer.Outcome], root: Path) -> list[str]:
    """systemd reads the new units and drop-in before anything starts; a running
    virtqemud is restarted once when its cgroup drop-in is new (it applies at start)."""
    _systemctl(machine, ["daemon-reload"])
    dropin = writer.under(root, units.VIRTQEMUD_DROPIN)
    if any(o.path == dropin and o.action in ("written", "replaced") for o in outcomes):
        _systemctl(machine, ["try-restart", "virtqemud.service"])
        return ["systemd: reloaded; virtqemud restarted for its ProtectControlGroups=no drop-in"]
    return ["systemd: reloaded"]


def _systemctl(machine: Machine, args: list[str]) -> None:
    done = machine.runner.run(["systemctl", *args])
    if not done.ok:
        raise JoinRefused(reason=f"systemctl {' '.join(args)} failed: {done.output}")


def wait_active(
    services: tuple[svc.Service, ...], state: Path, timeout: float = ACTIVE_TIMEOUT
) -> list[str]:
    """Each service's state once all run (or the timeout passes)."""
    deadline = time.monotonic() + timeout
    while True:
        pids = {s.name: svc.running(state, s.name) for s in services}
        if all(pids.values()) or time.monotonic() >= deadline:
            break
        time.sleep(0.2)
    what = {svc.COMPUTE: "compute agent", svc.NETWORK_AGENT: "L2 + DHCP agents"}
    return [
        f"{name} ({what.get(name, name)}): "
        + (f"active (pid {pid})" if pid else f"NOT running (see {svc.log_file(state, name)})")
        for name, pid in pids.items()
    ]


def node_of(found: facts.Facts, virt: kvm_probe.VirtTypeDecision, options: Options) -> render.Node:
    return render.Node(
        my_ip=found.first_ipv4 or "",
        virt_type=virt.virt_type,
        state_dir=str(options.layout.state),
        compute_driver=options.compute_driver,
    )


def suggest_provider_nic(found: facts.Facts) -> str | None:
    """The first physical-looking link that is up and not the default route's."""
    route = found.default_route.interface if found.default_route else None
    for link in found.links:
        if not link.kind and link.state == "UP" and link.name != route:
            return link.name
    return None


def checked_reach(
    answers: Answers, machine: Machine, found: facts.Facts, options: Options, out: TextIO
) -> None:
    """The controller checks, printed; JoinRefused before anything is written."""
    reach = probes.reach(machine.runner, machine.transport, answers.controller,
                         answers.identity_url)  # fmt: skip
    say(out, screen.reach_lines(reach))
    problems = plan.preflight(answers, found, reach, options.allow_default_route_nic)
    owner = bridge.owner(ReadOnly(machine.runner), answers.provider_nic)
    if owner not in (None, answers.bridge):
        problems.append(
            f"{answers.provider_nic} is already a port of the bridge {owner}, not "
            f"{answers.bridge}: remove it there first (ovs-vsctl del-port {owner} "
            f"{answers.provider_nic}) or choose another NIC"
        )
    plan.refuse_if(problems)


def join(
    answers: Answers, found: facts.Facts, virt: kvm_probe.VirtTypeDecision, options: Options,
    machine: Machine, out: TextIO,
) -> bool:  # fmt: skip
    """Check, write, start; whether every service runs."""
    checked_reach(answers, machine, found, options, out)
    layout = options.layout
    systemd = machine.systemd() and layout.root == Path("/")
    planned, services = plan.files(
        answers, node_of(found, virt, options), layout, systemd, machine.modular_libvirt(),
        options.user, options.programs, options.probe_guest,
    )  # fmt: skip
    outcomes = write_files(planned, options, machine, out)
    say(out, screen.outcome_lines(outcomes))
    if systemd:
        say(out, reload_units(machine, outcomes, layout.root))
    say(out, [f"libvirt: {line}" for line in machine.libvirt()])
    made = bridge.ensure(machine.runner, answers.bridge, answers.provider_nic)
    say(out, [f"bridge: {line}" for line in made]
        or [f"bridge: {answers.bridge} already holds {answers.provider_nic}"])  # fmt: skip
    say(out, start_services(services, outcomes, options, machine, systemd))
    if systemd:
        return True
    lines = wait_active(services, layout.state)
    say(out, lines)
    return all(": active" in line for line in lines)
