"""Bring the provider bridges in line with the ports the network service bound here.

``OvsReconciler.reconcile_once(desired)`` reads what each bridge has (its
ports with their iface-id, ofport and tag) and changes only the difference:

* a desired port on its bridge gets its access VLAN and its flows
  (``ovs_flows.flows_for``); one not (yet) there is reported missing;
* a port carrying an iface-id the service did not list is isolated (dead
  VLAN, drop): a guest whose port was deleted or never bound gets no
  unfiltered access, as with Neutron's agent. So the service must list every
  port bound to this host, the DHCP agent's too;
* a port without iface-id is an uplink (a trunk), unless it has an access
  tag (another agent's port): then its network is that tag, so traffic from
  it to a filtered port still meets that port's rules;
* flows under one of our cookies that no port wants any more are deleted.

Flows are compared by ``ovs-ofctl diff-flows`` (it parses both sides, so
spelling never counts as a difference), grouped by cookie; each cookie that
differs is replaced whole (delete by cookie, add) and everything goes in one
``--bundle``: no packet sees half a change. A second run, or a restarted
agent, finds nothing to do and leaves flows, counters and conntrack alone.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from saphira.network.l2 import ovs_bridge
from saphira.network.l2.errors import L2Error
from saphira.network.l2.ovs_flows import flows_for, port_tag
from saphira.network.l2.ovs_pipeline import (
    BASE_COOKIE,
    DEAD_VLAN,
    MAX_BRIDGES,
    access_port_flows,
    base_flows,
    dead_flows,
    foreign_cookie,
    is_ours,
    network_id,
    port_cookie,
    trunk_flows,
)
from saphira.objects.network import PortDetails
from saphira.privsep import ovs
from saphira.privsep.errors import PrivsepError

LOG = logging.getLogger(__name__)
COOKIE = re.compile(r"\bcookie=(0x[0-9a-fA-F]+)")


@dataclass
class Report:
    up: list[str] = field(default_factory=list)  # wired and forwarding: report these ACTIVE
    changed: list[str] = field(default_factory=list)  # tag or flows (re)applied this time
    unchanged: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # not on their bridge (yet)
    isolated: list[str] = field(default_factory=list)  # iface-ids not wired: unknown or failed
    removed: list[str] = field(default_factory=list)  # cookies of flows no port wants
    failed: dict[str, str] = field(default_factory=dict)  # port id or bridge -> why
    applied: list[str] = field(default_factory=list)  # the bundle sent, for the log


@dataclass
class _Plan:
    """One bridge's wanted state: flows by cookie, tags by OVS port name."""

    flows: dict[int, list[str]]  # starts with the base flows
    tags: dict[str, int | None] = field(default_factory=dict)
    owners: dict[int, str] = field(default_factory=dict)  # cookie -> desired port id
    names: dict[str, str] = field(default_factory=dict)  # OVS port name -> desired port id


def cookie_of(line: str) -> int:
    """The cookie of a flow as ovs-ofctl prints it (printed only when not 0)."""
    found = COOKIE.search(line)
    return int(found.group(1), 16) if found else 0


class OvsReconciler:
    def __init__(self, bridge_mappings: dict[str, str], datapath_type: str = "auto") -> None:
        if len(bridge_mappings) > MAX_BRIDGES:
            raise L2Error(detail=f"bridge_mappings: at most {MAX_BRIDGES} bridges")
        self.bridge_mappings = dict(bridge_mappings)
        self.index = {bridge: i for i, bridge in enumerate(self.bridge_mappings.values())}
        self.datapath_type = datapath_type
        self.bridges: dict[str, ovs_bridge.BridgeInfo] = {}  # as first ensured

    def reconcile_once(self, desired: list[PortDetails]) -> Report:
        report = Report()
        per_bridge: dict[str, list[PortDetails]] = {b: [] for b in self.bridge_mappings.values()}
        for port in desired:
            bridge = self.bridge_mappings.get(port.segment.physical_network)
            if bridge is None:
                physnet = port.segment.physical_network
                report.failed[port.port_id] = f"no bridge mapped for physical network {physnet}"
            else:
                per_bridge[bridge].append(port)
        for bridge, ports in per_bridge.items():
            try:
                self._reconcile_bridge(bridge, ports, report)
            except PrivsepError as error:
                LOG.warning("bridge %s: %s", bridge, error.message)
                report.failed[bridge] = error.message
        return report

    def _ensure(self, bridge: str) -> None:
        known = self.bridges.get(bridge)
        info = ovs_bridge.ensure_bridge(
            bridge, known.datapath_type if known else self.datapath_type
        )
        self.bridges.setdefault(bridge, info)

    def _reconcile_bridge(self, bridge: str, ports: list[PortDetails], report: Report) -> None:
        self._ensure(bridge)
        present = ovs.interfaces(bridge)
        plan = self._plan(self.index[bridge], ports, present, report)
        retag = {
            iface.name: plan.tags[iface.name]
            for iface in present
            if iface.name in plan.tags and iface.tag != plan.tags[iface.name]
        }
        ovs_bridge.set_vlans(retag)
        retagged = {plan.names.get(name, "") for name in retag}
        changed = self._apply_flows(bridge, plan, report)
        for port_id in plan.owners.values():
            (report.changed if port_id in changed | retagged else report.unchanged).append(port_id)

    def _plan(
        self, index: int, ports: list[PortDetails], present: list[ovs.Interface], report: Report
    ) -> _Plan:
        plan = _Plan({BASE_COOKIE: base_flows(index)})
        by_id = ovs_bridge.by_iface_id(present)
        for port in ports:
            iface = by_id.get(port.port_id)
            if iface is None or iface.ofport <= 0:
                report.missing.append(port.port_id)
                continue
            try:
                flows, tag = flows_for(port, iface.ofport, index), port_tag(port)
            except L2Error as error:
                report.failed[port.port_id] = error.message
                continue
            cookie = port_cookie(port.port_id)
            plan.flows[cookie], plan.tags[iface.name] = flows, tag
            plan.owners[cookie], plan.names[iface.name] = port.port_id, port.port_id
            if port.admin_state_up:
                report.up.append(port.port_id)
        for iface in present:
            if iface.ofport > 0 and iface.name not in plan.tags:
                self._plan_other(index, iface, plan, report)
        return plan

    @staticmethod
    def _plan_other(index: int, iface: ovs.Interface, plan: _Plan, report: Report) -> None:
        """A port not wired above: a guest nobody asked for, an uplink, another agent's port."""
        cookie = foreign_cookie(iface.name)  # by name: two taps may carry one iface-id
        iface_id = iface.external_ids.get("iface-id")
        if iface_id is not None:
            plan.flows[cookie] = dead_flows(cookie, iface.ofport)
            plan.tags[iface.name] = DEAD_VLAN
            report.isolated.append(iface_id)
        elif iface.tag is None:
            plan.flows[cookie] = trunk_flows(cookie, iface.ofport)
        else:
            network = network_id(index, iface.tag)
            plan.flows[cookie] = access_port_flows(cookie, iface.ofport, network)

    def _apply_flows(self, bridge: str, plan: _Plan, report: Report) -> set[str]:
        """Replace every cookie whose flows differ; the desired port ids that changed."""
        wanted = [line for flows in plan.flows.values() for line in flows]
        touched = {cookie_of(line) for line in ovs.diff_flows(bridge, wanted)}
        stale = sorted(c for c in touched if is_ours(c) and c not in plan.flows)
        redo = sorted(c for c in touched if c in plan.flows)
        bundle = [f"delete cookie={cookie:#x}/-1" for cookie in (*stale, *redo)]
        bundle += [f"add {line}" for cookie in redo for line in plan.flows[cookie]]
        if bundle:
            ovs.apply_flows(bridge, bundle)
            LOG.info("bridge %s: replaced %d flow sets, removed %d", bridge, len(redo), len(stale))
        report.removed += [f"{cookie:#x}" for cookie in stale]
        report.applied += bundle
        return {plan.owners[cookie] for cookie in redo if cookie in plan.owners}
