"""Request bodies checked as Neutron's attribute maps check them.

Each resource declares its attributes: whether POST and PUT may set them,
whether POST needs them, and a converter that checks the type and says why
not in Neutron's words ("Invalid input for X. Reason: ...").
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from saphira.exception import BadRequest
from saphira.netsvc.validation import bad_attr

Convert = Callable[[str, Any], Any]
NAME_MAX, DESCRIPTION_MAX = 255, 255
_TRUE, _FALSE = ("true", "1"), ("false", "0")


@dataclass(frozen=True)
class Attr:
    convert: Convert
    post: bool = True
    put: bool = True
    required: bool = False


def anything(_name: str, value: Any) -> Any:
    return value


def boolean(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str | int) and str(value).lower() in _TRUE + _FALSE:
        return str(value).lower() in _TRUE
    raise bad_attr(name, f"'{value}' cannot be converted to boolean")


def string(limit: int) -> Convert:
    def convert(name: str, value: Any) -> str:
        if not isinstance(value, str):
            raise bad_attr(name, f"'{value}' is not a valid string")
        if len(value) > limit:
            raise bad_attr(name, f"'{value}' exceeds maximum length of {limit}")
        return value

    return convert


def nullable(inner: Convert) -> Convert:
    def convert(name: str, value: Any) -> Any:
        return None if value is None else inner(name, value)

    return convert


def integer(low: int | None = None, high: int | None = None) -> Convert:
    def convert(name: str, value: Any) -> int:
        if isinstance(value, bool) or not re.fullmatch(r"-?\d+", str(value).strip()):
            raise bad_attr(name, f"'{value}' is not an integer")
        number = int(str(value))
        if (low is not None and number < low) or (high is not None and number > high):
            raise bad_attr(name, f"'{number}' is not in range {low} through {high}")
        return number

    return convert


def ip_version(name: str, value: Any) -> int:
    number = int(integer()(name, value))
    if number not in (4, 6):
        raise bad_attr(name, f"{number} is not in [4, 6]")
    return number


def uuid_text(name: str, value: Any) -> str:
    try:
        uuid.UUID(str(value))
    except ValueError:
        raise bad_attr(name, f"'{value}' is not a valid UUID") from None
    return str(value)


def one_of(*choices: Any) -> Convert:
    def convert(name: str, value: Any) -> Any:
        if value not in choices:
            raise bad_attr(name, f"{value!r} is not in {list(choices)}")
        return value

    return convert


def list_of(item: Convert) -> Convert:
    def convert(name: str, value: Any) -> list[Any]:
        if not isinstance(value, list):
            raise bad_attr(name, f"'{value}' is not a list")
        return [item(name, element) for element in value]

    return convert


def dict_of(keys: tuple[str, ...], required: tuple[str, ...] = ()) -> Convert:
    def convert(name: str, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise bad_attr(name, f"'{value}' is not a dictionary")
        if not set(value) <= set(keys) or not set(required) <= set(value):
            raise bad_attr(name, f"Validation of dictionary's keys failed. Provided keys: "
                           f"{sorted(value)} - Expected keys: {list(keys)}")  # fmt: skip
        return dict(value)

    return convert


def a_dict(name: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise bad_attr(name, f"'{value}' is not a dictionary")
    return dict(value)


PROJECT = Attr(string(NAME_MAX), put=False)
COMMON: dict[str, Attr] = {
    "name": Attr(string(NAME_MAX)),
    "description": Attr(string(DESCRIPTION_MAX)),
    "project_id": PROJECT,
    "tenant_id": PROJECT,
}


def _data(body: Any, key: str) -> dict[str, Any]:
    if not isinstance(body, dict) or not isinstance(body.get(key), dict):
        raise BadRequest(f"Unable to find '{key}' in request body")
    data: dict[str, Any] = body[key]
    return data


def parse(body: Any, key: str, spec: dict[str, Attr], *, update: bool = False) -> dict[str, Any]:
    """The checked attributes of ``body[key]``; ``project_id`` stands for ``tenant_id`` too."""
    return parse_item(_data(body, key), spec, update=update)


def parse_item(data: dict[str, Any], spec: dict[str, Attr], *, update: bool) -> dict[str, Any]:
    unknown = sorted(k for k in data if k not in spec)
    if unknown:
        raise BadRequest(f"Unrecognized attribute(s) '{', '.join(unknown)}'")
    found: dict[str, Any] = {}
    for name, value in data.items():
        attr = spec[name]
        if update and not attr.put:
            raise BadRequest(f"Cannot update read-only attribute {name}")
        if not update and not attr.post:
            raise BadRequest(f"Attribute '{name}' not allowed in POST")
        found[name] = attr.convert(name, value)
    if not update:
        for name, attr in spec.items():
            if attr.required and name not in found:
                raise BadRequest(
                    f"Failed to parse request. Required attribute '{name}' not specified"
                )
    tenant = found.pop("tenant_id", None)
    if tenant is not None and found.setdefault("project_id", tenant) != tenant:
        raise BadRequest("'project_id' and 'tenant_id' do not match")
    return found
