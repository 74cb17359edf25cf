"""What the tool prints: the facts screen, the controller checks, the files' fates."""

from __future__ import annotations

from collections.abc import Iterable

from saphira.join.facts import Facts
from saphira.join.probes import Reach
from saphira.join.writer import Outcome
from saphira.virt.kvm_probe import VirtTypeDecision

GIB = 1024**3


def facts_lines(facts: Facts, virt: VirtTypeDecision) -> list[str]:
    route = facts.default_route
    lines = [
        f"architecture:   {facts.architecture or 'unknown'}",
        f"memory:         {facts.memory.total_kib / 1024**2:.1f} GiB total, "
        f"{facts.memory.available_kib / 1024**2:.1f} GiB available",
        *(f"disk:           {d.name} {d.size_bytes / GIB:.1f} GiB ({d.kind})" for d in facts.disks),
        *(
            f"link:           {link.name} {link.state} {link.mac}"
            + (f" ({link.kind})" if link.kind else "")
            for link in facts.links
        ),
        "default route:  "
        + (f"via {route.gateway or '(direct)'} dev {route.interface}" if route else "none"),
        f"first IPv4:     {facts.first_ipv4 or 'none (my_ip needs one)'}",
        f"virt_type:      {virt.virt_type} ({virt.reason})",
    ]
    if "no probe guest" in virt.reason:
        lines.append("to prove KVM:   python -m saphira.guest_image DIR, then --probe-guest DIR")
    return lines + ([f"advice:         {virt.advice}"] if virt.advice else [])


def reach_lines(reach: Reach) -> list[str]:
    route = reach.route
    where = (
        f"dev {route.interface} via {route.gateway or '(direct)'} src {route.source or '?'}"
        if route
        else f"none ({reach.route_error})"
    )
    status = f"{reach.identity_status:03d}" + (
        f" ({reach.identity_error})" if reach.identity_error else ""
    )
    return [
        f"route to {reach.controller}: {where}",
        f"GET {reach.identity_url}: {status}",
    ]


def outcome_lines(outcomes: Iterable[Outcome]) -> list[str]:
    words = {
        "written": "written",
        "unchanged": "unchanged",
        "replaced": "replaced (--force)",
        "kept": "kept: differs from what this join would write (--force replaces it)",
    }
    return [f"{o.path}: {words[o.action]}" for o in outcomes]
