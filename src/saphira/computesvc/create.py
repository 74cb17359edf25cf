"""What a server create reads and writes: the flavor and key pair it names,
and the quota claim that records the new servers.

Everything that makes a server count against quota (instance mapping with
cell NULL, request spec with vcpus/memory_mb, build request, group member)
is inserted inside ``QuotaEngine.reserve_up_to``'s locked transaction, so
concurrent creates never pass the limit.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.computesvc.caller import Caller
from saphira.db.api import build_requests
from saphira.db.api import flavors as flavor_store
from saphira.db.api.models import InstanceGroupMember, InstanceMapping, KeyPair
from saphira.db.api.models import RequestSpec as SpecRow
from saphira.db.api.quota import QuotaEngine, Scope
from saphira.objects import Flavor, Instance, RequestSpec

NewServers = list[tuple[Instance, RequestSpec]]


def flavor(caller: Caller, ref: str) -> Flavor:
    """The flavor as the caller may see it (FlavorNotFound otherwise), as an object."""
    context = caller.context
    row = flavor_store.get_for_server(caller.api, ref, context.project_id, context.is_admin)
    return Flavor(
        row.flavorid, row.name, row.vcpus, row.memory_mb, row.root_gb, row.ephemeral_gb,
        row.swap, row.rxtx_factor, row.vcpu_weight, row.is_public, row.disabled,
        row.description, {spec.key: spec.value or "" for spec in row.extra_specs},
    )  # fmt: skip


def public_key(caller: Caller, name: str) -> str | None:
    """The caller's key pair ``name``'s public key; None if the user has no such pair."""
    stmt = sa.select(KeyPair).filter_by(user_id=caller.context.user_id, name=name)
    pair = caller.api.scalars(stmt).first()
    return None if pair is None else pair.public_key


def _insert(session: Session, instance: Instance, spec: RequestSpec, group_id: int | None) -> None:
    uuid, flavor = instance.uuid, instance.flavor
    session.add(InstanceMapping(instance_uuid=uuid, cell_id=None, project_id=instance.project_id,
                                user_id=instance.user_id))  # fmt: skip
    session.add(SpecRow(instance_uuid=uuid, spec=json.dumps(spec.to_primitive()),
                        vcpus=flavor.vcpus, memory_mb=flavor.memory_mb))  # fmt: skip
    build_requests.create(session, instance)
    if group_id is not None:
        session.add(InstanceGroupMember(instance_uuid=instance.uuid, group_id=group_id))


def claim(quota: QuotaEngine, caller: Caller, scope: Scope, each: dict[str, int],
          counts: tuple[int, int], group_id: int | None,
          make: Callable[[int], NewServers]) -> NewServers:  # fmt: skip
    """As many servers (``counts``: min, max) as the quota's headroom allows, computed
    once under the project's quota lock; ``make(count)`` builds them, and they are
    recorded in the same transaction."""
    # Hand the request's (read-only so far) connection back first: the reservation
    # takes its own, and requests each holding one while waiting for a second
    # exhaust the pool. close() keeps what was loaded readable (commit would expire it).
    caller.api.close()
    least, most = counts
    with quota.reserve_up_to(caller.directory.api_db, scope, each, least,
                             most) as (session, count):  # fmt: skip
        made = make(count)
        for instance, spec in made:
            _insert(session, instance, spec, group_id)
    return made
