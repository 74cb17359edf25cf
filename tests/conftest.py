"""Hooks for the whole suite: skips must be expected (tests/skips.py)."""

from __future__ import annotations

import pytest

from tests import skips


def pytest_configure(config: pytest.Config) -> None:
    skips.register(config)
