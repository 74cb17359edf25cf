"""What the compute API answers on success for its servers, flavors, key pairs and
server groups (shows, lists and writes): the members Nova returns at every microversion
are required, with their types; what later microversions add may come too (one
description holds from 2.1 to the newest, and the fuzzer sends both ends). The other
resources' answers are in compute_admin_answers, compute_server_answers and
compute_proxy_answers."""

from __future__ import annotations

from typing import Any

from saphira.api.openapi.model import (
    COUNT,
    FLAG,
    INTEGER,
    LINKS,
    MAYBE_TEXT,
    TEXT,
    TEXTS,
    Schema,
    answer,
    keyed,
    listing,
    ok,
    record,
    wrapped,
)

STRINGS = keyed(TEXT)  # metadata, extra specs
ONE_STRING: Schema = {**STRINGS, "minProperties": 1, "maxProperties": 1}  # one key's
METADATA = wrapped("metadata", STRINGS)  # a server's or an image's
META = wrapped("meta", ONE_STRING)
_BRIEF = record(["id", "name", "links"], {"id": TEXT, "name": TEXT, "links": LINKS})
_ADDRESS = record(["addr", "version"], {"addr": TEXT, "version": {"enum": [4, 6]}})
ADDRESSES = keyed({"type": "array", "items": _ADDRESS})
SERVER = record(
    ["id", "name", "status", "tenant_id", "user_id", "metadata", "hostId", "image", "flavor",
     "created", "updated", "addresses", "accessIPv4", "accessIPv6", "links"],
    {
        "id": TEXT, "name": TEXT, "status": TEXT, "tenant_id": TEXT, "user_id": TEXT,
        "metadata": STRINGS, "hostId": TEXT,
        "image": {"oneOf": [{"const": ""}, record(["id"])]}, "flavor": {"type": "object"},
        "created": TEXT, "updated": TEXT, "accessIPv4": TEXT, "accessIPv6": TEXT,
        "addresses": ADDRESSES, "links": LINKS, "progress": COUNT,
        "fault": record(["code", "message", "created"], {"code": INTEGER}),
        "OS-EXT-STS:vm_state": TEXT, "OS-EXT-STS:task_state": MAYBE_TEXT,
        "OS-EXT-STS:power_state": INTEGER, "key_name": MAYBE_TEXT,
        "security_groups": {"type": "array", "items": record(["name"])},
    },
)  # fmt: skip
# POST /servers: the first server's id and links (adminPass too unless the cloud turns
# instance passwords off), or only the reservation id when return_reservation_id asks.
_CREATED = wrapped("server", record(["id", "links"], {
    "id": TEXT, "links": LINKS, "adminPass": TEXT, "OS-DCF:diskConfig": TEXT,
    "security_groups": {"type": "array", "items": record(["name"])}}))  # fmt: skip
_RESERVED = record(["reservation_id"], {"reservation_id": TEXT})
FLAVOR = record(
    ["id", "name", "ram", "vcpus", "disk", "links", "OS-FLV-EXT-DATA:ephemeral",
     "os-flavor-access:is_public"],
    {"id": TEXT, "name": TEXT, "ram": COUNT, "vcpus": COUNT, "disk": COUNT,
     "links": LINKS, "swap": {"oneOf": [COUNT, {"const": ""}]},
     "OS-FLV-EXT-DATA:ephemeral": COUNT, "os-flavor-access:is_public": FLAG,
     "description": MAYBE_TEXT, "extra_specs": STRINGS},
)  # fmt: skip
_ACCESS = listing("flavor_access", record(["flavor_id", "tenant_id"],
                                          {"flavor_id": TEXT, "tenant_id": TEXT}))  # fmt: skip
_KEY = {"name": TEXT, "public_key": TEXT, "fingerprint": TEXT}
_KEYPAIR = record(["name", "public_key", "fingerprint"], _KEY)
# A create answers the owner, and the private key when it generated the pair.
_NEW_KEYPAIR = wrapped("keypair", record(["name", "public_key", "fingerprint", "user_id"], {
    **_KEY, "user_id": TEXT, "private_key": TEXT, "type": TEXT}))  # fmt: skip
_GROUP = record(["id", "name", "members"], {"id": TEXT, "name": TEXT,
                "members": TEXTS})  # fmt: skip

# POST /servers/{id}/action answers a body for a few actions only (the others: none).
# 200: os-getConsoleOutput; os-getVNCConsole, -SPICE- and -Serial- (below 2.6);
# evacuate before 2.14.
_ACTION_200: Schema = {"anyOf": [
    record(["output"], {"output": TEXT}),
    wrapped("console", record(["type", "url"], {"type": TEXT, "url": TEXT})),
    record(["adminPass"], {"adminPass": TEXT}),
]}  # fmt: skip
# 202: rebuild (the server, with its new adminPass); createImage from 2.45 (the image id).
_ACTION_202: Schema = {"anyOf": [
    wrapped("server", {**SERVER, "properties": {**SERVER["properties"], "adminPass": TEXT}}),
    record(["image_id"], {"image_id": TEXT}),
]}  # fmt: skip


_SERVERS = "/v2.1/servers"
_FLAVORS = "/v2.1/flavors"
_SPECS = f"{_FLAVORS}/<flavor_id>/os-extra_specs"
_KEYPAIRS = "/v2.1/os-keypairs"
_GROUPS = "/v2.1/os-server-groups"
_ONE_FLAVOR = ok(wrapped("flavor", FLAVOR))
_ONE_GROUP = ok(wrapped("server_group", _GROUP))
ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    ("GET", _SERVERS): ok(listing("servers", _BRIEF)),
    ("POST", _SERVERS): {"202": answer({"anyOf": [_CREATED, _RESERVED]})},
    ("GET", f"{_SERVERS}/detail"): ok(listing("servers", SERVER)),
    ("GET", f"{_SERVERS}/<server_id>"): ok(wrapped("server", SERVER)),
    ("PUT", f"{_SERVERS}/<server_id>"): ok(wrapped("server", SERVER)),
    ("POST", f"{_SERVERS}/<server_id>/action"): {
        "200": answer(_ACTION_200),
        "202": answer(_ACTION_202),
    },
    ("GET", _FLAVORS): ok(listing("flavors", _BRIEF)),
    ("POST", _FLAVORS): _ONE_FLAVOR,
    ("GET", f"{_FLAVORS}/detail"): ok(listing("flavors", FLAVOR)),
    ("GET", f"{_FLAVORS}/<flavor_id>"): _ONE_FLAVOR,
    ("PUT", f"{_FLAVORS}/<flavor_id>"): _ONE_FLAVOR,
    ("GET", _SPECS): ok(wrapped("extra_specs", STRINGS)),
    ("POST", _SPECS): ok(wrapped("extra_specs", STRINGS)),
    ("GET", f"{_SPECS}/<key>"): ok(ONE_STRING),
    ("PUT", f"{_SPECS}/<key>"): ok(ONE_STRING),
    ("GET", f"{_FLAVORS}/<flavor_id>/os-flavor-access"): ok(_ACCESS),
    ("POST", f"{_FLAVORS}/<flavor_id>/action"): ok(_ACCESS),  # add or remove a project
    ("GET", _KEYPAIRS): ok(listing("keypairs", wrapped("keypair", _KEYPAIR))),
    # 200 before 2.2, 201 from 2.2
    ("POST", _KEYPAIRS): {**ok(_NEW_KEYPAIR), "201": answer(_NEW_KEYPAIR)},
    ("GET", f"{_KEYPAIRS}/<keypair_name>"): ok(wrapped("keypair", _KEYPAIR)),
    ("GET", _GROUPS): ok(listing("server_groups", _GROUP)),
    ("POST", _GROUPS): _ONE_GROUP,
    ("GET", f"{_GROUPS}/<group_id>"): _ONE_GROUP,
}
