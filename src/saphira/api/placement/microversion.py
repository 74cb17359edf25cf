"""``OpenStack-API-Version: placement 1.x``: parse, bound, echo.

No header means 1.0 (the Placement rule); ``latest`` means the maximum. A
malformed value is a 400, a well-formed one out of range a 406, as Placement
answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from saphira import exception

HEADER = "OpenStack-API-Version"
SERVICE = "placement"
MIN = (1, 0)
MAX = (1, 36)
_VERSION = re.compile(r"^([1-9]\d*)\.([1-9]\d*|0)$")


class NotAcceptable(exception.SaphiraError):
    code = 406
    title = "Not Acceptable"
    msg_fmt = "Unacceptable version header."


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    def at_least(self, minor: int) -> bool:
        return (self.major, self.minor) >= (1, minor)


def version_string(v: tuple[int, int]) -> str:
    return f"{v[0]}.{v[1]}"


def _ours(header: str) -> str | None:
    for part in header.split(","):
        words = part.strip().split()
        if len(words) == 2 and words[0].lower() == SERVICE:
            return words[1]
    return None


def parse(header: str | None) -> Version:
    value = _ours(header or "")
    if value is None:
        return Version(*MIN)
    if value.lower() == "latest":
        return Version(*MAX)
    match = _VERSION.match(value)
    if match is None:
        raise exception.BadRequest(f"invalid version string: {value}")
    version = Version(int(match.group(1)), int(match.group(2)))
    if not Version(*MIN) <= version <= Version(*MAX):
        raise NotAcceptable(
            f"Unacceptable version header: {value}. Supported versions are "
            f"{version_string(MIN)} to {version_string(MAX)}."
        )
    return version
