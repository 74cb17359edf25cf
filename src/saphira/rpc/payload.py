"""What a message carries: JSON types, datetimes and versioned objects.

Versioned objects are ``saphira.objects`` (one mechanism for the whole
project, with oslo.versionedobjects' rule: same major, any minor); this
module only walks containers, turns objects into their envelopes and back,
and tags datetimes so they survive a JSON bus. An envelope that cannot be
read (unknown name, other major) is a ValidationError, so a mixed-version
deployment fails loudly at the edge of the message, not deep in a handler.
"""

from __future__ import annotations

import datetime
from typing import Any

from saphira.exception import ValidationError
from saphira.objects import base

DATETIME = "saphira.dt"


def to_primitive(value: Any) -> Any:
    """Plain JSON-able data; objects become their versioned envelopes."""
    if type(value) in base.ATOMS:
        return value
    if isinstance(value, base.SaphiraObject):
        return value.to_primitive()
    if isinstance(value, datetime.datetime):
        return {DATETIME: value.isoformat()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_primitive(item) for item in value]
    if isinstance(value, dict):
        return {key: to_primitive(item) for key, item in value.items()}
    return value


def from_primitive(value: Any) -> Any:
    """The inverse of to_primitive (JSON lists stay lists)."""
    if isinstance(value, dict):
        if base.NAME in value:
            try:
                return base.from_primitive(value)
            except ValueError as error:  # IncompatibleVersion is a ValueError too
                raise ValidationError(detail=str(error)) from None
        if set(value) == {DATETIME}:
            return datetime.datetime.fromisoformat(value[DATETIME])
        return {key: from_primitive(item) for key, item in value.items()}
    if isinstance(value, list):
        return [from_primitive(item) for item in value]
    return value
