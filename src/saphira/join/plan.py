"""The join's plan: where things go, and every check made before anything is written.

``Layout`` places the files under ``--root`` (paths written into the files
and the services' command lines are the real ones under that root, so a
join into a temporary root is complete and runnable). ``preflight`` refuses
with the reason (``JoinRefused``) before the first write: no route or
identity answer, a route through the provider NIC, the default-route NIC
without ``--allow-default-route-nic``, a NIC that does not exist, no IPv4.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from saphira.exception import JoinRefused
from saphira.join import render, sudoers, units
from saphira.join import services as svc
from saphira.join.answers import Answers
from saphira.join.facts import Facts
from saphira.join.probes import Reach
from saphira.join.writer import Planned, under

DEFAULT_ROUTE_RISK = (
    "{nic} carries this host's default route (SSH is likely on it): as a port of "
    "{bridge} it stops carrying this host's own traffic, and the host may become "
    "unreachable. Use a dedicated provider NIC, or pass --allow-default-route-nic "
    "if you have console access and mean it."
)


@dataclass(frozen=True)
class Layout:
    root: Path
    config_dir: Path  # as on the target, e.g. /etc/saphira
    state_dir: Path  # as on the target, e.g. /var/lib/saphira

    @property
    def conf_dir(self) -> Path:
        return under(self.root, self.config_dir)

    @property
    def state(self) -> Path:
        return under(self.root, self.state_dir)

    @property
    def compute_conf(self) -> Path:
        return self.conf_dir / render.COMPUTE_CONF

    @property
    def agent_conf(self) -> Path:
        return self.conf_dir / render.AGENT_CONF

    @property
    def services_file(self) -> Path:
        return self.conf_dir / "services.json"

    @property
    def record(self) -> Path:
        """The join's non-secret answers: what --check compares the host with."""
        return self.conf_dir / "join.conf"

    @property
    def sudoers(self) -> Path:
        return under(self.root, sudoers.PATH)


def preflight(
    answers: Answers, facts: Facts, reach: Reach, allow_default_route_nic: bool
) -> list[str]:
    """Every reason to stop before writing; empty when the join may go on."""
    problems = reach.problems(answers.provider_nic, answers.management_nic or None)
    names = {link.name for link in facts.links}
    if answers.provider_nic not in names:
        problems.append(f"the provider NIC {answers.provider_nic} does not exist on this host")
    route = facts.default_route
    if route and route.interface == answers.provider_nic and not allow_default_route_nic:
        problems.append(DEFAULT_ROUTE_RISK.format(nic=answers.provider_nic, bridge=answers.bridge))
    if facts.first_ipv4 is None:
        problems.append("this host has no global IPv4 address for my_ip")
    return problems


def refuse_if(problems: list[str]) -> None:
    if problems:
        raise JoinRefused(reason="; ".join(problems) + " (nothing was written)")


def files(
    answers: Answers,
    node: render.Node,
    layout: Layout,
    systemd: bool,
    modular: bool,
    user: str,
    programs: Mapping[str, str] | None = None,
    probe_guest: Path | None = None,
) -> tuple[list[Planned], tuple[svc.Service, ...]]:
    """Every file the join writes, and the services it runs."""
    services = svc.node_services(layout.conf_dir, layout.agent_conf, user, programs)
    planned = [
        Planned(layout.compute_conf, render.compute_conf(answers, node)),
        Planned(layout.agent_conf, render.agent_conf(answers)),
        Planned(layout.sudoers, sudoers.rule(user), sudoers.MODE),
        Planned(layout.record, record(answers, user, probe_guest), 0o644),
    ]
    if systemd:
        planned += [
            Planned(under(layout.root, p.path), p.text, p.mode)
            for p in units.planned(services, modular)
        ]
    else:
        planned.append(Planned(layout.services_file, svc.dumps(services), 0o644))
    return planned, services


RECORDED = ("controller", "provider_nic", "physnet", "bridge", "management_nic", "host")


def record(answers: Answers, user: str, probe_guest: Path | None = None) -> str:
    """An answers file of the join's non-secret answers (and the services' user)."""
    lines = [render.HEADER.rstrip("\n"), "[join]"]
    lines += [f"{name} = {getattr(answers, name)}" for name in RECORDED]
    node = [f"user = {user}", f"probe_guest = {probe_guest or ''}"]
    return "\n".join([*lines, "", "[node]", *node, ""])
