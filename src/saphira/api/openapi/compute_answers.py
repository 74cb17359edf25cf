"""What the compute API answers on success for its shows and lists: the members Nova
returns at every microversion are required, with their types; what later microversions
add may come too (one description holds from 2.1 to the newest, and the fuzzer sends
both ends)."""

from __future__ import annotations

from typing import Any

from saphira.api.openapi.model import (
    LINKS,
    MAYBE_TEXT,
    TEXT,
    Schema,
    answer,
    listing,
    record,
    wrapped,
)

_COUNT: Schema = {"type": "integer", "minimum": 0}
_BRIEF = record(["id", "name", "links"], {"id": TEXT, "name": TEXT, "links": LINKS})
_ADDRESS = record(["addr", "version"], {"addr": TEXT, "version": {"enum": [4, 6]}})
SERVER = record(
    ["id", "name", "status", "tenant_id", "user_id", "metadata", "hostId", "image", "flavor",
     "created", "updated", "addresses", "accessIPv4", "accessIPv6", "links"],
    {
        "id": TEXT, "name": TEXT, "status": TEXT, "tenant_id": TEXT, "user_id": TEXT,
        "metadata": {"type": "object", "additionalProperties": TEXT}, "hostId": TEXT,
        "image": {"oneOf": [{"const": ""}, record(["id"])]}, "flavor": {"type": "object"},
        "created": TEXT, "updated": TEXT, "accessIPv4": TEXT, "accessIPv6": TEXT,
        "addresses": {"type": "object", "additionalProperties": {"type": "array",
                                                                 "items": _ADDRESS}},
        "links": LINKS, "progress": _COUNT,
        "fault": record(["code", "message", "created"], {"code": {"type": "integer"}}),
        "OS-EXT-STS:vm_state": TEXT, "OS-EXT-STS:task_state": MAYBE_TEXT,
        "OS-EXT-STS:power_state": {"type": "integer"}, "key_name": MAYBE_TEXT,
        "security_groups": {"type": "array", "items": record(["name"])},
    },
)  # fmt: skip
FLAVOR = record(
    ["id", "name", "ram", "vcpus", "disk", "links", "OS-FLV-EXT-DATA:ephemeral",
     "os-flavor-access:is_public"],
    {"id": TEXT, "name": TEXT, "ram": _COUNT, "vcpus": _COUNT, "disk": _COUNT,
     "links": LINKS, "swap": {"oneOf": [_COUNT, {"const": ""}]},
     "OS-FLV-EXT-DATA:ephemeral": _COUNT, "os-flavor-access:is_public": {"type": "boolean"},
     "description": MAYBE_TEXT, "extra_specs": {"type": "object"}},
)  # fmt: skip
_KEYPAIR = record(["name", "public_key", "fingerprint"],
                  {"name": TEXT, "public_key": TEXT, "fingerprint": TEXT})  # fmt: skip
_GROUP = record(["id", "name", "members"], {"id": TEXT, "name": TEXT,
                "members": {"type": "array", "items": TEXT}})  # fmt: skip

_SERVERS = "/v2.1/servers"
_FLAVORS = "/v2.1/flavors"
ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    ("GET", _SERVERS): {"200": answer(listing("servers", _BRIEF))},
    ("GET", f"{_SERVERS}/detail"): {"200": answer(listing("servers", SERVER))},
    ("GET", f"{_SERVERS}/<server_id>"): {"200": answer(wrapped("server", SERVER))},
    ("GET", _FLAVORS): {"200": answer(listing("flavors", _BRIEF))},
    ("GET", f"{_FLAVORS}/detail"): {"200": answer(listing("flavors", FLAVOR))},
    ("GET", f"{_FLAVORS}/<flavor_id>"): {"200": answer(wrapped("flavor", FLAVOR))},
    ("GET", "/v2.1/os-keypairs"): {
        "200": answer(listing("keypairs", wrapped("keypair", _KEYPAIR)))
    },
    ("GET", "/v2.1/os-keypairs/<keypair_name>"): {"200": answer(wrapped("keypair", _KEYPAIR))},
    ("GET", "/v2.1/os-server-groups"): {"200": answer(listing("server_groups", _GROUP))},
    ("GET", "/v2.1/os-server-groups/<group_id>"): {"200": answer(wrapped("server_group", _GROUP))},
}
