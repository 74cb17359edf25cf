"""What an entry point accepts: every argument checked inside the helper, before use.

The helper runs commands without a shell, but an argument can still be an
option (``-f``), a path (``../``) or another object than the caller's own
(the host firewall's table): each kind of value has one strict pattern here,
and anything else is refused with ``InvalidArgument`` before a command runs.
"""

from __future__ import annotations

import ipaddress
import os
import re

from saphira.exception import ValidationError

_DEVICE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,14}")  # IFNAMSIZ - 1, never "/" or ".."
_NAMESPACE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_MAC = re.compile(r"[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}")
_IDENTIFIER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}")  # an iface-id, a port id
_PATH = re.compile(r"(/[A-Za-z0-9_.+-]+)+")
_TABLE = re.compile(r"saphira[A-Za-z0-9_]{0,24}")  # only Saphira's own nftables tables
_FLOW_TEXT = re.compile(r"[\x20-\x7e]{1,2000}")  # one printable line
TABLE_FAMILIES = ("bridge", "inet")


class InvalidArgument(ValidationError):
    msg_fmt = "privileged helper refused %(detail)s"


def _match(pattern: re.Pattern[str], kind: str, value: object) -> str:
    if not isinstance(value, str) or pattern.fullmatch(value) is None:
        raise InvalidArgument(detail=f"{kind} {value!r}")
    return value


def device(value: object) -> str:
    return _match(_DEVICE, "device name", value)


def namespace(value: object) -> str:
    return _match(_NAMESPACE, "namespace name", value)


def optional_namespace(value: object) -> str | None:
    return None if value is None else namespace(value)


def mac(value: object) -> str:
    return _match(_MAC, "MAC address", value)


def identifier(value: object) -> str:
    return _match(_IDENTIFIER, "identifier", value)


def table(family: object, name: object) -> tuple[str, str]:
    if family not in TABLE_FAMILIES:
        raise InvalidArgument(detail=f"nftables family {family!r}")
    return str(family), _match(_TABLE, "nftables table", name)


def flow_text(value: object) -> str:
    """An OpenFlow match or flow line for ovs-ofctl: one printable line, no option."""
    text = _match(_FLOW_TEXT, "flow", value)
    if text.startswith("-"):
        raise InvalidArgument(detail=f"flow {value!r}")
    return text


def path(value: object) -> str:
    """An absolute, normalised path: no "..", no "//", no trailing "/", no odd characters."""
    text = _match(_PATH, "path", value)
    if os.path.normpath(text) != text or "/../" in f"{text}/" or "/./" in f"{text}/":
        raise InvalidArgument(detail=f"path {value!r}")
    return text


def integer(value: object, low: int, high: int, kind: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgument(detail=f"{kind} {value!r}")
    return value


def address(value: object) -> str:
    try:
        return str(ipaddress.ip_address(str(value))) if isinstance(value, str) else _bad(value)
    except ValueError:
        return _bad(value)


def interface_address(value: object) -> str:
    """``ip/prefixlen``, as ``ip addr add`` takes it."""
    try:
        if isinstance(value, str) and "/" in value:
            return str(ipaddress.ip_interface(value))
    except ValueError:
        pass
    raise InvalidArgument(detail=f"address {value!r}")


def _bad(value: object) -> str:
    raise InvalidArgument(detail=f"address {value!r}")
