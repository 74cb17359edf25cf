"""One decision: candidates from placement, filters, weighers, claim, alternates.

Placement is the source of truth for room; the host states (cached) add
service, zone and hypervisor facts. A claim is a PUT of the allocation with
the instance uuid as consumer; placement's generations make two schedulers
racing for the last room fail one of them (409), which then tries its next host.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any, Protocol

from oslo_config import cfg

from saphira import exception
from saphira.clients.placement import Candidates
from saphira.objects.request_spec import RequestSpec
from saphira.objects.selection import Selection
from saphira.scheduler import explain, filters, weighers
from saphira.scheduler.host_state import UNMAPPED, Candidate, HostState, Request

CLAIM_LOST = "placement: claim refused (a concurrent request took the room)"
USED_UP = "placement: room taken by earlier instances of this request"


class Placement(explain.InventoryReader, Protocol):
    def get_candidates(
        self, resources: dict[str, int], *, limit: int | None = None
    ) -> Candidates: ...

    def claim(
        self, consumer: str, allocation_request: dict[str, Any], *, project_id: str, user_id: str
    ) -> None: ...

    def delete_allocations(self, consumer: str) -> bool: ...


class HostSource(Protocol):
    def hosts(self) -> list[HostState]: ...


def _provider_of(request: dict[str, Any], states: dict[str, HostState]) -> str | None:
    return next((rp for rp in request["allocations"] if rp in states), None)


def _room(summary: dict[str, Any]) -> tuple[dict[str, int], dict[str, int]]:
    resources = summary.get("resources", {})
    capacity = {rc: int(v["capacity"]) for rc, v in resources.items()}
    return capacity, {rc: int(v["used"]) for rc, v in resources.items()}


class Selector:
    def __init__(self, conf: cfg.ConfigOpts, placement: Placement, hosts: HostSource) -> None:
        self.conf, self.placement, self.hosts = conf, placement, hosts
        self.filters = filters.load(conf.filter_scheduler.enabled_filters)
        self.weighers = weighers.load(conf)
        self._random = random.Random()

    def select(
        self, spec: RequestSpec, instance_uuids: Sequence[str], return_alternates: bool = True
    ) -> list[list[Selection]]:
        """Claim one host per instance; all or nothing (claims are released on failure)."""
        wanted = spec.resources()
        states = {state.uuid: state for state in self.hosts.hosts()}
        offered = self.placement.get_candidates(
            wanted, limit=self.conf.scheduler.max_placement_results
        )
        candidates = self._candidates(states, offered)
        request, claimed, result = Request.of(spec), list[str](), list[list[Selection]]()
        try:
            for uuid in instance_uuids:
                chosen = self._one(uuid, request, candidates, states, wanted, return_alternates)
                claimed.append(uuid)
                result.append(chosen)
                request.group_hosts.append(chosen[0].host)
        except exception.NoValidHost:
            for consumer in claimed:
                self.placement.delete_allocations(consumer)
            raise
        return result

    def _candidates(self, states: dict[str, HostState], offered: Candidates) -> list[Candidate]:
        found: dict[str, Candidate] = {}
        for alloc in offered.allocation_requests:
            rp = _provider_of(alloc, states)
            if rp is None or rp in found or not states[rp].mapped:
                continue
            capacity, used = _room(offered.provider_summaries.get(rp, {}))
            found[rp] = Candidate(states[rp], alloc, capacity, used)
        return list(found.values())

    def _refusal(self, cand: Candidate, request: Request, wanted: dict[str, int]) -> str | None:
        spec = request.spec
        if cand.state.host in spec.ignore_hosts:
            return "already tried for this build"
        if spec.force_hosts and cand.state.host not in spec.force_hosts:
            return "not among the requested hosts"
        if spec.force_nodes and cand.state.node not in spec.force_nodes:
            return "not among the requested nodes"
        if not cand.fits(wanted):
            return USED_UP
        return filters.first_refusal(self.filters, cand.state, request)

    def _one(
        self,
        uuid: str,
        request: Request,
        candidates: list[Candidate],
        states: dict[str, HostState],
        wanted: dict[str, int],
        return_alternates: bool,
    ) -> list[Selection]:
        reasons: dict[str, str] = {}
        passing: list[Candidate] = []
        for cand in candidates:
            refusal = self._refusal(cand, request, wanted)
            if refusal is None:
                passing.append(cand)
            else:
                reasons[explain.label(cand.state)] = refusal
        ordered = self._order(weighers.weigh(self.weighers, passing, request))
        for cand in ordered:
            try:
                self.placement.claim(
                    uuid,
                    cand.allocation_request,
                    project_id=request.spec.project_id,
                    user_id=request.spec.user_id,
                )
            except exception.Conflict:
                reasons[explain.label(cand.state)] = CLAIM_LOST
                continue
            cand.consume(wanted)
            alternates = self._alternates(cand, ordered, wanted) if return_alternates else []
            return [_selection(c) for c in (cand, *alternates)]
        raise self._no_valid_host(reasons, candidates, states, wanted)

    def _order(self, ranked: list[tuple[float, Candidate]]) -> list[Candidate]:
        """Best first; host_subset_size and shuffle_best_same_weighed_hosts pick at random."""
        ordered = [cand for _, cand in ranked]
        group = self.conf.filter_scheduler
        if len(ordered) < 2:
            return ordered
        if group.shuffle_best_same_weighed_hosts:
            best = sum(1 for weight, _ in ranked if weight == ranked[0][0])
            head = ordered[:best]
            self._random.shuffle(head)
            ordered[:best] = head
        size = min(group.host_subset_size, len(ordered))
        if size > 1:
            pick = self._random.randrange(size)
            ordered.insert(0, ordered.pop(pick))
        return ordered

    def _alternates(
        self, chosen: Candidate, ordered: list[Candidate], wanted: dict[str, int]
    ) -> list[Candidate]:
        count = self.conf.scheduler.max_attempts - 1
        same_cell = (
            c
            for c in ordered
            if c is not chosen and c.state.cell_uuid == chosen.state.cell_uuid and c.fits(wanted)
        )
        return list(itertools.islice(same_cell, count))

    def _no_valid_host(
        self,
        reasons: dict[str, str],
        candidates: list[Candidate],
        states: dict[str, HostState],
        wanted: dict[str, int],
    ) -> exception.NoValidHost:
        offered = {cand.state.uuid for cand in candidates}
        excluded: list[HostState] = []
        for state in states.values():
            if state.uuid in offered:
                continue
            if not state.mapped:
                reasons[explain.label(state)] = UNMAPPED
            else:
                excluded.append(state)
        explain.explain_excluded(self.placement, excluded, wanted, reasons)
        return explain.no_valid_host(reasons, len(states))


def _selection(cand: Candidate) -> Selection:
    allocations = {
        rp: dict(v["resources"]) for rp, v in cand.allocation_request["allocations"].items()
    }
    state = cand.state
    return Selection(
        host=state.host,
        node=state.node,
        compute_node_uuid=state.uuid,
        cell_uuid=state.cell_uuid,
        allocation_request=allocations,
        availability_zone=state.availability_zone,
    )
