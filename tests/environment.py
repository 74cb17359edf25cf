"""What the suite needs of its host. A server or tool the test command provides
that is missing is a broken environment: the test fails and says so, it never
skips (a skip would let a green run hide it). Genuinely absent host features
skip, and are listed in tests/expected-skips.txt (see tests/skips.py)."""

from __future__ import annotations

import os
import shutil

import pytest

# What building the tiny guest image takes (tools/build-test-image).
IMAGE_BUILD_TOOLS = ("apt-get", "dpkg-deb", "mkfs.vfat", "syslinux", "mcopy", "qemu-img")


def server_url(variable: str) -> str:
    """The URL in ``variable`` (SAPHIRA_TEST_POSTGRESQL, _MARIADB, _RABBIT); fails if unset."""
    value = os.environ.get(variable)
    if not value:
        pytest.fail(f"{variable} is not set (tools/run-tests starts the server and sets it)")
    return value


def require_tools(*tools: str) -> None:
    """Fails naming every one of ``tools`` not on PATH."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"not installed: {', '.join(missing)} (tools/dev setup installs them)")
