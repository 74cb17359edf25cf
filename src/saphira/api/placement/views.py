"""Response bodies for providers and inventories, per microversion."""

from __future__ import annotations

from typing import Any

from saphira.api.placement.app import Call
from saphira.db.placement.models import Inventory, ResourceProvider
from saphira.placement.inventories import as_dict


def provider(call: Call, rp: ResourceProvider, uuids: dict[int, str]) -> dict[str, Any]:
    base = f"{call.request.script_root}/resource_providers/{rp.uuid}"
    rels = ["inventories", "usages"]
    if call.at_least(1):
        rels.append("aggregates")
    if call.at_least(6):
        rels.append("traits")
    if call.at_least(11):
        rels.append("allocations")
    links = [{"rel": "self", "href": base}]
    links += [{"rel": rel, "href": f"{base}/{rel}"} for rel in rels]
    body: dict[str, Any] = {
        "uuid": rp.uuid,
        "name": rp.name,
        "generation": rp.generation,
        "links": links,
    }
    if call.at_least(14):
        body["parent_provider_uuid"] = uuids.get(rp.parent_provider_id or 0)
        body["root_provider_uuid"] = uuids.get(rp.root_provider_id or rp.id)
    return body


def inventories(rp: ResourceProvider, found: dict[str, Inventory]) -> dict[str, Any]:
    return {
        "resource_provider_generation": rp.generation,
        "inventories": {rc: as_dict(inv) for rc, inv in sorted(found.items())},
    }


def inventory(rp: ResourceProvider, inv: Inventory) -> dict[str, Any]:
    return {"resource_provider_generation": rp.generation, **as_dict(inv)}
