"""Query-string syntax shared by the list and candidate routes."""

from __future__ import annotations

import re
import uuid as uuidlib

from saphira.placement.errors import QueryBadValue

_RC = re.compile(r"^[A-Z0-9_]+$")


def normalize_uuid(value: str, what: str = "uuid") -> str:
    try:
        return str(uuidlib.UUID(value))
    except ValueError:
        raise QueryBadValue(f"Invalid {what} value: {value}") from None


def resources(value: str) -> dict[str, int]:
    """``VCPU:1,MEMORY_MB:512``; Placement's 400 wording for the bad parts."""
    result: dict[str, int] = {}
    for part in value.split(","):
        rc, _, amount = part.strip().partition(":")
        if not _RC.match(rc) or not amount.isdigit():
            raise QueryBadValue(
                f"Badly formed resources parameter. Expected resources query string parameter "
                f"in form: ?resources=VCPU:2,MEMORY_MB:1024. Got: {value}."
            )
        if rc in result:
            raise QueryBadValue(f"Resource class {rc} was specified more than once")
        if int(amount) < 1:
            raise QueryBadValue(
                f"Requested resource {rc} expected positive integer amount. Got: {amount}."
            )
        result[rc] = int(amount)
    return result


def traits(value: str, forbidden_ok: bool) -> tuple[set[str], set[str]]:
    """``A,!B`` -> (required, forbidden)."""
    required: set[str] = set()
    forbidden: set[str] = set()
    for raw in value.split(","):
        name = raw.strip()
        if forbidden_ok and name.startswith("!"):
            forbidden.add(name[1:])
        elif name:
            required.add(name)
        if not name or not _RC.match(name.lstrip("!") if forbidden_ok else name):
            raise QueryBadValue(
                f"Invalid query string parameters: Expected 'required' parameter "
                f"value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: {value}"
            )
    both = required & forbidden
    if both:
        raise QueryBadValue(f"Conflicting required and forbidden traits found: {sorted(both)}")
    return required, forbidden


def member_of(values: list[str], forbidden_ok: bool) -> tuple[list[set[str]], set[str]]:
    """Each ``member_of`` is ``uuid`` or ``in:u1,u2`` (ANDed when repeated, 1.24)."""
    groups: list[set[str]] = []
    forbidden: set[str] = set()
    for value in values:
        negative = forbidden_ok and value.startswith("!")
        body = value[1:] if negative else value
        listed = body.startswith("in:")
        items = body[3:].split(",") if listed else [body]
        uuids = {normalize_uuid(i.strip(), "member_of") for i in items}
        if negative:
            forbidden |= uuids
        else:
            groups.append(uuids)
    return groups, forbidden
