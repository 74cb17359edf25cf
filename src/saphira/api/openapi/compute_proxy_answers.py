"""What the compute API answers on success for its version documents and for what it
proxies in Nova's old shapes: the network service's networks and security groups (to
2.35), the image service's images (to 2.35) and their metadata (to 2.38). Nova's
members required, later ones allowed, as in compute_answers."""

from __future__ import annotations

from typing import Any

from saphira.api.openapi.compute_answers import META, METADATA, STRINGS
from saphira.api.openapi.model import (
    INTEGER,
    LINKS,
    MAYBE_INTEGER,
    MAYBE_TEXT,
    MEDIA_TYPES,
    TEXT,
    list_and_show,
    listing,
    ok,
    record,
    wrapped,
)

_VERSION_KEYS = ["id", "status", "version", "min_version", "updated", "links"]
_VERSION = dict.fromkeys(_VERSION_KEYS, TEXT) | {"links": LINKS}
# One version's own document adds its media types.
_ONE_VERSION = wrapped("version", record([*_VERSION_KEYS, "media-types"],
                                         {**_VERSION, "media-types": MEDIA_TYPES}))  # fmt: skip

# os-networks: nova-network's fields, null where the network service has none (an
# admin sees more of them, all null).
_NETWORK_FIELDS = ["netmask", "gateway", "broadcast", "dns1", "dns2", "cidr_v6", "gateway_v6",
                   "netmask_v6"]  # fmt: skip
_NETWORK = record(["id", "label", "cidr", *_NETWORK_FIELDS],
                  {"id": TEXT, "label": TEXT, "cidr": MAYBE_TEXT,
                   **dict.fromkeys(_NETWORK_FIELDS, MAYBE_TEXT)})  # fmt: skip
_TENANT_NETWORK = record(["id", "cidr", "label"],
                         {"id": TEXT, "cidr": MAYBE_TEXT, "label": TEXT})  # fmt: skip

# A rule names either the group it lets in ({name, tenant_id}) or a CIDR; the other is {}.
_RULE = record(
    ["id", "parent_group_id", "ip_protocol", "from_port", "to_port", "group", "ip_range"],
    {"id": TEXT, "parent_group_id": TEXT, "ip_protocol": MAYBE_TEXT,
     "from_port": MAYBE_INTEGER, "to_port": MAYBE_INTEGER,
     "group": record([], {"name": TEXT, "tenant_id": TEXT}),
     "ip_range": record([], {"cidr": TEXT})},
)  # fmt: skip
SECURITY_GROUP = record(
    ["id", "name", "description", "tenant_id", "rules"],
    {"id": TEXT, "name": TEXT, "description": TEXT, "tenant_id": TEXT,
     "rules": {"type": "array", "items": _RULE}},
)  # fmt: skip

_IMAGE_BRIEF = {"id": TEXT, "name": MAYBE_TEXT, "links": LINKS}
_IMAGE = record(
    ["id", "name", "links", "status", "progress", "minRam", "minDisk", "metadata", "created",
     "updated"],
    {**_IMAGE_BRIEF, "status": {"enum": ["ACTIVE", "SAVING", "DELETED", "ERROR", "UNKNOWN"]},
     "progress": INTEGER, "minRam": INTEGER, "minDisk": INTEGER, "metadata": STRINGS,
     "created": TEXT, "updated": TEXT, "OS-EXT-IMG-SIZE:size": MAYBE_INTEGER,
     "server": record(["id", "links"], {"id": TEXT, "links": LINKS}),
     "OS-DCF:diskConfig": TEXT},
)  # fmt: skip

_IMAGES = "/v2.1/images"
_GROUPS = "/v2.1/os-security-groups"
_METADATA = ok(METADATA)
_META = ok(META)
_ONE_GROUP = ok(wrapped("security_group", SECURITY_GROUP))
ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    ("GET", "/"): ok(listing("versions", record(_VERSION_KEYS, _VERSION))),
    ("GET", "/v2.1"): ok(_ONE_VERSION),
    ("GET", "/v2"): ok(_ONE_VERSION),
    **list_and_show("/v2.1/os-networks", "network_id", ("networks", "network"), _NETWORK),
    **list_and_show("/v2.1/os-tenant-networks", "network_id", ("networks", "network"),
                    _TENANT_NETWORK),
    **list_and_show(_GROUPS, "group_id", ("security_groups", "security_group"), SECURITY_GROUP),
    ("POST", _GROUPS): _ONE_GROUP,
    ("PUT", f"{_GROUPS}/<group_id>"): _ONE_GROUP,
    ("POST", "/v2.1/os-security-group-rules"): ok(wrapped("security_group_rule", _RULE)),
    # A server's groups are its ports' groups, in the same shape.
    ("GET", "/v2.1/servers/<server_id>/os-security-groups"): ok(
        listing("security_groups", SECURITY_GROUP)
    ),
    **list_and_show(_IMAGES, "image_id", ("images", "image"), _IMAGE,
                    listing("images", record(["id", "name", "links"], _IMAGE_BRIEF))),
    ("GET", f"{_IMAGES}/detail"): ok(listing("images", _IMAGE)),
    ("GET", f"{_IMAGES}/<image_id>/metadata"): _METADATA,
    ("POST", f"{_IMAGES}/<image_id>/metadata"): _METADATA,
    ("PUT", f"{_IMAGES}/<image_id>/metadata"): _METADATA,
    ("GET", f"{_IMAGES}/<image_id>/metadata/<key>"): _META,
    ("PUT", f"{_IMAGES}/<image_id>/metadata/<key>"): _META,
}  # fmt: skip
