"""What the compute API answers on success for a server's own resources: its metadata,
tags, addresses, interfaces, instance actions, consoles and password (Nova's members
at every microversion required, later ones allowed, as in compute_answers)."""

from __future__ import annotations

from typing import Any

from saphira.api.openapi.compute_answers import ADDRESSES, META, METADATA
from saphira.api.openapi.model import (
    INTEGER,
    MAYBE_INTEGER,
    MAYBE_TEXT,
    TEXT,
    TEXTS,
    listing,
    ok,
    record,
    wrapped,
)

_TAGS = wrapped("tags", TEXTS)
_FIXED_IP = record(["subnet_id", "ip_address"], {"subnet_id": TEXT, "ip_address": TEXT})
_INTERFACE = record(
    ["port_state", "fixed_ips", "port_id", "net_id", "mac_addr"],
    {"port_state": TEXT, "fixed_ips": {"type": "array", "items": _FIXED_IP}, "port_id": TEXT,
     "net_id": TEXT, "mac_addr": TEXT, "tag": MAYBE_TEXT},  # tag: 2.70
)  # fmt: skip
# updated_at comes at 2.58.
_ACTION = {"action": TEXT, "instance_uuid": TEXT, "request_id": TEXT, "user_id": TEXT,
           "project_id": TEXT, "start_time": TEXT, "message": MAYBE_TEXT,
           "updated_at": TEXT}  # fmt: skip
_ACTION_KEYS = ["action", "instance_uuid", "request_id", "user_id", "project_id", "start_time",
                "message"]  # fmt: skip
# An event's traceback and host are an admin's; host and hostId come at 2.62, details at 2.84.
_EVENT = record(
    ["event", "start_time", "finish_time", "result"],
    {"event": TEXT, "start_time": TEXT, "finish_time": MAYBE_TEXT, "result": MAYBE_TEXT,
     "traceback": MAYBE_TEXT, "host": TEXT, "hostId": TEXT, "details": MAYBE_TEXT},
)  # fmt: skip
# The events come to admins, and to everyone from 2.51.
_SHOWN_ACTION = record(_ACTION_KEYS, {**_ACTION, "events": {"type": "array", "items": _EVENT}})
_REMOTE_CONSOLE = wrapped("remote_console", record(["protocol", "type", "url"],
                          {"protocol": TEXT, "type": TEXT, "url": TEXT}))  # fmt: skip
# tls_port comes at 2.99.
_CONSOLE_TOKEN = wrapped("console", record(
    ["instance_uuid", "host", "port", "internal_access_path"],
    {"instance_uuid": TEXT, "host": TEXT, "port": INTEGER, "internal_access_path": MAYBE_TEXT,
     "tls_port": MAYBE_INTEGER},
))  # fmt: skip

_SERVER = "/v2.1/servers/<server_id>"
_ACTIONS = f"{_SERVER}/os-instance-actions"


ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    ("GET", f"{_SERVER}/metadata"): ok(METADATA),
    ("POST", f"{_SERVER}/metadata"): ok(METADATA),
    ("PUT", f"{_SERVER}/metadata"): ok(METADATA),
    ("GET", f"{_SERVER}/metadata/<key>"): ok(META),
    ("PUT", f"{_SERVER}/metadata/<key>"): ok(META),
    ("GET", f"{_SERVER}/tags"): ok(_TAGS),
    ("PUT", f"{_SERVER}/tags"): ok(_TAGS),
    ("GET", f"{_SERVER}/ips"): ok(wrapped("addresses", ADDRESSES)),
    ("GET", f"{_SERVER}/ips/<network>"): ok({**ADDRESSES, "minProperties": 1}),
    ("GET", f"{_SERVER}/os-interface"): ok(listing("interfaceAttachments", _INTERFACE)),
    ("POST", f"{_SERVER}/os-interface"): ok(wrapped("interfaceAttachment", _INTERFACE)),
    ("GET", f"{_SERVER}/os-interface/<port_id>"): ok(wrapped("interfaceAttachment", _INTERFACE)),
    ("GET", _ACTIONS): ok(listing("instanceActions", record(_ACTION_KEYS, _ACTION))),
    ("GET", f"{_ACTIONS}/<request_id>"): ok(wrapped("instanceAction", _SHOWN_ACTION)),
    ("POST", f"{_SERVER}/remote-consoles"): ok(_REMOTE_CONSOLE),
    ("GET", "/v2.1/os-console-auth-tokens/<token>"): ok(_CONSOLE_TOKEN),
    ("GET", f"{_SERVER}/os-server-password"): ok(record(["password"], {"password": TEXT})),
}
