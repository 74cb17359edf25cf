"""GET /allocation_candidates: every way the request fits, tree by tree.

A request is one or more groups. The unnumbered group may take each resource
class from a different provider of one tree; a numbered group (1.25+) takes
all of its classes from one provider. ``group_policy=isolate`` keeps numbered
groups on distinct providers. Capacity is checked on the merged claim, so two
groups landing on one provider must fit together.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.placement.models import ProviderAggregate, ResourceProvider
from saphira.placement import capacity, traits
from saphira.placement.errors import ProviderNotFound

MAX_PER_TREE = 1000  # combinations tried per tree before moving on

Claim = dict[int, dict[str, int]]  # provider id -> class -> amount


@dataclass
class RequestGroup:
    suffix: str = ""  # "" is the unnumbered group
    resources: dict[str, int] = field(default_factory=dict)
    required: set[str] = field(default_factory=set)
    forbidden: set[str] = field(default_factory=set)
    member_of: list[set[str]] = field(default_factory=list)
    not_member_of: set[str] = field(default_factory=set)
    in_tree: str | None = None


@dataclass
class Query:
    groups: list[RequestGroup]
    group_policy: str | None = None
    root_required: set[str] = field(default_factory=set)
    root_forbidden: set[str] = field(default_factory=set)
    limit: int | None = None


@dataclass(frozen=True)
class Node:
    id: int
    uuid: str
    root_id: int
    parent_id: int | None


@dataclass
class Candidate:
    claim: Claim
    mappings: dict[str, list[int]]


@dataclass
class Result:
    candidates: list[Candidate]
    nodes: dict[int, Node]
    rooms: dict[capacity.Key, capacity.Room]
    traits: dict[int, set[str]]


@dataclass
class _World:
    nodes: dict[int, Node]
    rooms: dict[capacity.Key, capacity.Room]
    traits: dict[int, set[str]]
    aggregates: dict[int, set[str]]


_NODES = sa.select(
    ResourceProvider.id,
    ResourceProvider.uuid,
    ResourceProvider.root_provider_id,
    ResourceProvider.parent_provider_id,
).order_by(ResourceProvider.id)  # built once (its construction costs more than its run)


def _load(session: Session, query: Query) -> _World:
    rows = session.execute(_NODES)
    nodes = {
        r.id: Node(r.id, r.uuid, r.root_provider_id or r.id, r.parent_provider_id) for r in rows
    }
    # Every class, not only the requested ones: the same read serves the candidates and
    # the provider summaries of those shown (all their classes), so it is read once.
    rooms = capacity.rooms(session)
    wanted = {a for g in query.groups for s in g.member_of for a in s}
    wanted |= {a for g in query.groups for a in g.not_member_of}
    aggregates: dict[int, set[str]] = {}
    if wanted:
        agg_rows = session.scalars(
            sa.select(ProviderAggregate).where(ProviderAggregate.aggregate.in_(sorted(wanted)))
        )
        for row in agg_rows:
            aggregates.setdefault(row.resource_provider_id, set()).add(row.aggregate)
    return _World(nodes, rooms, traits.by_provider(session, nodes), aggregates)


def _in_aggregates(world: _World, node: Node, group: RequestGroup) -> bool:
    mine = world.aggregates.get(node.id, set()) | world.aggregates.get(node.root_id, set())
    if any(not (mine & wanted) for wanted in group.member_of):
        return False
    return not (mine & group.not_member_of)


def _numbered_options(world: _World, tree: list[Node], group: RequestGroup) -> list[Claim]:
    options: list[Claim] = []
    for node in tree:
        have = world.traits.get(node.id, set())
        if not group.required <= have or have & group.forbidden:
            continue
        if not _in_aggregates(world, node, group):
            continue
        if capacity.fits_all(world.rooms, node.id, group.resources):
            options.append({node.id: dict(group.resources)})
    return options


def _unnumbered_options(world: _World, tree: list[Node], group: RequestGroup) -> Iterator[Claim]:
    per_class: list[list[tuple[int, str, int]]] = []
    for rc, amount in sorted(group.resources.items()):
        choices = [
            (node.id, rc, amount)
            for node in tree
            if not world.traits.get(node.id, set()) & group.forbidden
            and _in_aggregates(world, node, group)
            and capacity.fits_all(world.rooms, node.id, {rc: amount})
        ]
        per_class.append(choices)
    for combo in itertools.islice(itertools.product(*per_class), MAX_PER_TREE):
        claim: Claim = {}
        for pid, rc, amount in combo:
            claim.setdefault(pid, {})[rc] = amount
        have = set().union(*(world.traits.get(pid, set()) for pid in claim))
        if group.required <= have:
            yield claim


def _merge(parts: tuple[Claim, ...]) -> Claim:
    merged: Claim = {}
    for part in parts:
        for pid, res in part.items():
            mine = merged.setdefault(pid, {})
            for rc, amount in res.items():
                mine[rc] = mine.get(rc, 0) + amount
    return merged


def _fits(world: _World, claim: Claim) -> bool:
    return all(capacity.fits_all(world.rooms, pid, res) for pid, res in claim.items())


def _isolated(groups: list[RequestGroup], parts: tuple[Claim, ...]) -> bool:
    used = [set(part) for group, part in zip(groups, parts, strict=True) if group.suffix]
    return all(a.isdisjoint(b) for a, b in itertools.combinations(used, 2))


def _tree_candidates(world: _World, tree: list[Node], query: Query) -> Iterator[Candidate]:
    groups = [g for g in query.groups if g.resources]
    options = [
        list(_unnumbered_options(world, tree, g))
        if not g.suffix
        else _numbered_options(world, tree, g)
        for g in groups
    ]
    seen: set[tuple[tuple[int, tuple[tuple[str, int], ...]], ...]] = set()
    for parts in itertools.islice(itertools.product(*options), MAX_PER_TREE):
        if query.group_policy == "isolate" and not _isolated(groups, parts):
            continue
        claim = _merge(parts)
        key = tuple(sorted((pid, tuple(sorted(res.items()))) for pid, res in claim.items()))
        if key in seen or not _fits(world, claim):
            continue
        seen.add(key)
        mappings = {g.suffix: sorted(part) for g, part in zip(groups, parts, strict=True)}
        yield Candidate(claim, mappings)


def _trees(world: _World, query: Query) -> dict[int, list[Node]]:
    trees: dict[int, list[Node]] = {}
    for node in world.nodes.values():
        trees.setdefault(node.root_id, []).append(node)
    in_tree = {g.in_tree for g in query.groups if g.in_tree}
    for uuid in in_tree:
        found = next((n for n in world.nodes.values() if n.uuid == uuid), None)
        if found is None:
            raise ProviderNotFound(f"Invalid uuid value: {uuid}")
        trees = {found.root_id: trees[found.root_id]} if found.root_id in trees else {}
    return {
        root: tree
        for root, tree in trees.items()
        if query.root_required <= world.traits.get(root, set())
        and not world.traits.get(root, set()) & query.root_forbidden
    }


def find(session: Session, query: Query) -> Result:
    world = _load(session, query)
    found: list[Candidate] = []
    for _root, tree in sorted(_trees(world, query).items()):
        found.extend(_tree_candidates(world, tree, query))
        if query.limit is not None and len(found) >= query.limit:
            found = found[: query.limit]
            break
    involved = {pid for c in found for pid in c.claim}
    roots = {world.nodes[pid].root_id for pid in involved}
    shown = {nid: n for nid, n in world.nodes.items() if n.root_id in roots}
    rooms = {key: room for key, room in world.rooms.items() if key[0] in shown}
    return Result(found, shown, rooms, {k: v for k, v in world.traits.items() if k in shown})


def requested_classes(query: Query) -> set[str]:
    return {rc for g in query.groups for rc in g.resources}


def summary_resources(result: Result, pid: int, only: set[str] | None) -> dict[str, dict[str, int]]:
    out: Mapping[capacity.Key, capacity.Room] = result.rooms
    return {
        rc: {"capacity": room.capacity, "used": room.used}
        for (p, rc), room in sorted(out.items())
        if p == pid and (only is None or rc in only)
    }
