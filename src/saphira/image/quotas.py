"""Glance's quota options: a storage quota written with units, and counts."""

from __future__ import annotations

import re

from saphira.exception import ConfigError

UNITS = {"": 1, "B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}


def parse_size(text: str) -> int:
    """'10GB' -> bytes, as Glance reads user_storage_quota; 0 means unlimited."""
    found = re.fullmatch(r"\s*(\d+)\s*([KMGT]?B)?\s*", text.upper())
    if found is None:
        raise ConfigError(f"[image_api] user_storage_quota: invalid size {text!r}")
    return int(found.group(1)) * UNITS[found.group(2) or ""]


def remaining(quota: int, used: int) -> int | None:
    """Bytes still allowed, or None when unlimited."""
    if quota <= 0:
        return None
    return max(quota - used, 0)
