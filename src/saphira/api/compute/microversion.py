"""Compute API microversions: negotiation and per-version behaviour.

A request names its version in ``OpenStack-API-Version: compute X.Y`` or the
older ``X-OpenStack-Nova-API-Version: X.Y`` (the first wins), or "latest";
without either it gets 2.1. A version outside [MIN, MAX] is a 406. The
maximum only rises as every resource's shapes for the new version exist: the
servers wave raises it past what the resources here implement.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from saphira.exception import BadRequest, SaphiraError

SERVICE_TYPE = "compute"
HEADER = "OpenStack-API-Version"
LEGACY_HEADER = "X-OpenStack-Nova-API-Version"
VARY = f"{HEADER}, {LEGACY_HEADER}"
_FORMAT = re.compile(r"^([1-9]\d*)\.(0|[1-9]\d*)$")


class Version(NamedTuple):
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @classmethod
    def parse(cls, text: str) -> Version:
        match = _FORMAT.match(text.strip())
        if match is None:
            raise BadRequest(f"API Version String {text} is of invalid format. Must be of format "
                             "MajorNum.MinorNum.")  # fmt: skip
        return cls(int(match.group(1)), int(match.group(2)))


MIN = Version(2, 1)
MAX = Version(2, 100)


class NotAcceptable(SaphiraError):
    code = 406
    title = "Not Acceptable"


def _requested(headers: dict[str, str]) -> str | None:
    modern = headers.get(HEADER.lower())
    if modern:
        for item in modern.split(","):
            service, _, value = item.strip().partition(" ")
            if service.lower() == SERVICE_TYPE:
                return value.strip()
    return headers.get(LEGACY_HEADER.lower()) or None


def negotiate(headers: dict[str, str]) -> Version:
    """The version a request asked for, checked against [MIN, MAX]."""
    text = _requested(headers)
    if text is None:
        return MIN
    if text.lower() == "latest":
        return MAX
    version = Version.parse(text)
    if not MIN <= version <= MAX:
        raise NotAcceptable(
            f"Version {version} is not supported by the API. Minimum is {MIN} and maximum is {MAX}."
        )
    return version


def response_headers(version: Version) -> dict[str, str]:
    return {HEADER: f"{SERVICE_TYPE} {version}", LEGACY_HEADER: str(version), "Vary": VARY}
