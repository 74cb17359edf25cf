"""Standard resource classes and traits (from os-resource-classes and os-traits)
and the rules custom names must follow."""

from __future__ import annotations

import re
from functools import cache

import os_resource_classes
import os_traits

CUSTOM_PREFIX = "CUSTOM_"
_CUSTOM = re.compile(r"^CUSTOM_[A-Z0-9_]+$")


def standard_classes() -> tuple[str, ...]:
    return tuple(os_resource_classes.STANDARDS)


@cache
def standard_traits() -> frozenset[str]:
    return frozenset(os_traits.get_traits())


def is_valid_custom(name: str) -> bool:
    return bool(_CUSTOM.match(name)) and len(name) <= 255
