"""Glance's size options (a number with a unit) and the free-space reserve."""

from __future__ import annotations

import re
from dataclasses import dataclass

from saphira.exception import ConfigError

UNITS = {"": 1, "B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}


def parse_size(text: str, option: str = "[image_api] user_storage_quota") -> int:
    """'10GB' -> bytes, as Glance reads user_storage_quota; 0 means unlimited."""
    found = re.fullmatch(r"\s*(\d+)\s*([KMGT]?B)?\s*", text.upper())
    if found is None:
        raise ConfigError(f"{option}: invalid size {text!r}")
    return int(found.group(1)) * UNITS[found.group(2) or ""]


@dataclass(frozen=True)
class Reserve:
    """Free space to keep: a number of bytes or a percentage of the filesystem."""

    size: int = 0
    percent: float = 0.0

    def floor(self, filesystem_size: int) -> int:
        return max(self.size, int(filesystem_size * self.percent / 100))


def parse_reserve(text: str, option: str = "[glance_store] filesystem_store_reserve") -> Reserve:
    """'1GB' or '5%' -> a Reserve."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*%\s*", text)
    if found is None:
        return Reserve(size=parse_size(text, option))
    percent = float(found.group(1))
    if percent > 100:
        raise ConfigError(f"{option}: {text!r} is more than 100%")
    return Reserve(percent=percent)
