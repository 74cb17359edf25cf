"""Query-string helpers shared by the compute resources: paging, booleans, ints."""

from __future__ import annotations

import datetime as dt
import ipaddress
from typing import Any

from saphira.api.compute.app import Call
from saphira.exception import BadRequest

MAX_LIMIT = 1000  # Nova's [api] max_limit
MAX_INT = 2147483647  # Nova's db.MAX_INT


def bounded(value: Any, name: str, low: int, high: int = MAX_INT) -> int:
    """Nova's utils.validate_integer: the schemas bound numbers but not digit strings
    ("0", "624507335161830450019"), which would otherwise reach the database."""
    number = int(value)
    if number < low:
        raise BadRequest(f"Invalid input received: {name} must be >= {low}")
    if number > high:
        raise BadRequest(f"Invalid input received: {name} must be <= {high}")
    return number


def query_int(call: Call, name: str, *, minimum: int = 0) -> int | None:
    value = call.request.args.get(name)
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        raise BadRequest(f"Invalid input for query parameters {name}. Value: {value}. "
                         f"'{value}' is not an integer") from None  # fmt: skip
    if number < minimum:
        raise BadRequest(f"Invalid input for query parameters {name}. Value: {value}. "
                         f"{value} is less than the minimum of {minimum}")  # fmt: skip
    return number


def paging(call: Call) -> tuple[int, str | None]:
    """(limit, marker): Nova caps the limit at max_limit and 400s a negative one."""
    limit = query_int(call, "limit")
    return min(limit if limit is not None else MAX_LIMIT, MAX_LIMIT), call.request.args.get(
        "marker"
    )


def parse_bool(value: str, name: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("1", "t", "true", "on", "y", "yes"):
        return True
    if lowered in ("0", "f", "false", "off", "n", "no"):
        return False
    raise BadRequest(f"Invalid value '{value}' for {name}: not a boolean.")


def parse_time(value: str, name: str) -> dt.datetime:
    """A query time (changes-since...), naive UTC as the databases hold it."""
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise BadRequest(f"Invalid input for query parameters {name}. Value: {value}. "
                         f"'{value}' is not a 'date-time'") from None  # fmt: skip
    return parsed.astimezone(dt.UTC).replace(tzinfo=None) if parsed.tzinfo else parsed


def canonical_ip(value: Any) -> Any:
    """An access IP as Nova stores it: RFC 5952 form (``::babe:dc0c:1602``), else as given."""
    if not isinstance(value, str) or not value:
        return value
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return value
