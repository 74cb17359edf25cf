"""The L2 agent where Open vSwitch is absent: Linux bridges, nftables security groups.

``LinuxBridgeReconciler.reconcile_once(desired)`` lists the host (links,
802.1Q devices, our two nftables tables), plans the difference
(``linuxbridge_plan``) and changes only that: bridges made, taps enslaved,
brought up, given their MTU; then the generated ruleset (``nft_ruleset``)
replaces our tables in one ``nft -f`` transaction, but only when a chain's
digest or rule count differs from what is listed. A second run, or a
restarted agent, changes nothing: no packet is dropped, and connection
tracking (kept by the kernel, not by the tables) carries established
connections across a replacement.

Ports whose tap is not there yet get their chains anyway, so a guest is
filtered from its first frame; ports gone from ``desired`` lose theirs. A
port that cannot be wired (a VLAN the kernel cannot make, a bad rule) is
dropped both ways rather than left on whatever bridge libvirt put it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from saphira.network.l2 import linuxbridge_plan, nft_ruleset
from saphira.network.l2.errors import L2Error
from saphira.network.l2.nft_model import listed_fingerprint
from saphira.objects.network import PortDetails
from saphira.privsep import bridge, links, nft
from saphira.privsep.errors import PrivsepError

LOG = logging.getLogger(__name__)
Listing = list[dict[str, Any]] | None  # a table as privsep.nft.list_table returns it
FAMILIES = ("bridge", "inet")
ACTIONS: dict[str, Callable[..., None]] = {
    "create_bridge": bridge.create,
    "create_vlan": bridge.create_vlan,
    "delete": links.delete,
    "set_master": links.set_master,
    "set_mtu": links.set_mtu,
    "set_up": links.set_up,
}


@dataclass
class Report:
    up: list[str] = field(default_factory=list)  # wired, filtered, forwarding: report ACTIVE
    changed: list[str] = field(default_factory=list)  # plumbing or chains changed this time
    unchanged: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # no tap here (yet); chains are ready
    isolated: list[str] = field(default_factory=list)  # taps on our bridges nobody asked for
    removed: list[str] = field(default_factory=list)  # taps whose chains were dropped
    failed: dict[str, str] = field(default_factory=dict)  # port id (or "nftables") -> why
    applied: bool = False  # the ruleset was (re)written


class LinuxBridgeReconciler:
    def __init__(self, bridge_mappings: Mapping[str, str], table: str = nft_ruleset.TABLE) -> None:
        self.bridge_mappings = dict(bridge_mappings)
        self.table = table  # both families' tables carry this name

    def reconcile_once(self, desired: Sequence[PortDetails]) -> Report:
        ensure_netfilter()
        host = {link.name: link for link in links.all_links()}
        plan = linuxbridge_plan.plan(desired, host, bridge.vlans(), self.bridge_mappings)
        report = Report(missing=plan.missing, isolated=plan.isolated, failed=dict(plan.failed))
        touched = self._plumb(plan, report)
        wired = [port for port in desired if port.port_id not in report.failed]
        unwired = [nft_ruleset.tap_name(p.port_id) for p in desired if p.port_id in report.failed]
        ruleset = nft_ruleset.build(
            wired, bridges=plan.bridges, isolated=plan.isolated + unwired, table=self.table
        )
        report.failed.update(ruleset.failed)
        touched |= self._filter(ruleset, report)
        for port in desired:
            port_id = port.port_id
            if port_id not in plan.present or port_id in report.failed:
                continue
            (report.changed if port_id in touched else report.unchanged).append(port_id)
            if port.admin_state_up:
                report.up.append(port_id)
        return report

    def _plumb(self, plan: linuxbridge_plan.Plan, report: Report) -> set[str]:
        """Run the plan's steps; the port ids whose plumbing changed."""
        failed: dict[str, str] = {}  # owner (bridge or port id) -> why
        touched: set[str] = set()
        for step in plan.steps:
            if step.owner in failed or step.needs in failed:
                continue
            try:
                ACTIONS[step.action](*step.args)
            except PrivsepError as error:
                LOG.warning("%s %s: %s", step.action, step.args, error.message)
                failed[step.owner] = f"{step.action} {' '.join(map(str, step.args))}: {error}"
                continue
            LOG.info("%s %s", step.action, " ".join(map(str, step.args)))
            touched.add(step.owner)
        for owner, why in failed.items():
            for port_id in plan.users.get(owner, [owner]):
                report.failed.setdefault(port_id, why)
        return touched

    def _filter(self, ruleset: nft_ruleset.Ruleset, report: Report) -> set[str]:
        """Replace our tables if any chain differs; the port ids whose chains changed."""
        listed = {family: nft.list_table(family, self.table) for family in FAMILIES}
        have = {f: listed_fingerprint(items) for f, items in listed.items() if items is not None}
        want = {table.family: table.fingerprint for table in ruleset.tables}
        if have == want:
            return set()
        try:
            self._write(ruleset, listed)
        except PrivsepError as error:
            LOG.error("nftables table %s not written: %s", self.table, error.message)
            report.failed["nftables"] = error.message
            report.failed.update({port_id: error.message for port_id in ruleset.taps.values()})
            return set()
        report.applied = True
        old, new = have.get("bridge", {}), want.get("bridge", {})
        differing = {name for name in old.keys() | new.keys() if old.get(name) != new.get(name)}
        report.removed = sorted({tap_of(n) for n in old.keys() - new.keys()} - {""})
        return {ruleset.taps[tap] for n in differing if (tap := tap_of(n)) in ruleset.taps}

    def _write(self, ruleset: nft_ruleset.Ruleset, listed: dict[str, Listing]) -> None:
        if ruleset.tables:
            nft.apply(ruleset.script)
            LOG.info("nftables table %s written (%d ports)", self.table, len(ruleset.taps))
            return
        for family in FAMILIES:
            if listed[family] is not None:
                nft.delete_table(family, self.table)
        LOG.info("nftables table %s removed: no port to filter", self.table)


def tap_of(chain: str) -> str:
    """The tap a port chain belongs to ("" for the base chains)."""
    tap, _, direction = chain.rpartition("-")
    return tap if direction in ("egress", "ingress") else ""


def ensure_netfilter() -> None:
    """Stateful filtering on a bridge needs br_netfilter handing frames to the IP hooks."""
    calls = bridge.netfilter_calls()
    if None in calls.values():
        raise L2Error(detail="br_netfilter is not loaded (modprobe br_netfilter)")
    if any(value != "1" for value in calls.values()):
        LOG.info("turning on %s", ", ".join(calls))
        bridge.enable_netfilter_calls()
