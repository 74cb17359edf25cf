"""Fixtures shared by the integration tiers that boot real guests."""

from __future__ import annotations

import shutil

import pytest

from saphira.devtools.guest_image import GuestImage, build

NEEDED = ("apt-get", "dpkg-deb", "mkfs.vfat", "syslinux", "mcopy", "qemu-img")


@pytest.fixture(scope="session")
def tiny_image(tmp_path_factory: pytest.TempPathFactory) -> GuestImage:
    """The tiny image, built once per test session (the .debs stay in the user cache).

    The test command installs every tool it needs, so a missing one fails.
    """
    missing = [tool for tool in (*NEEDED, "qemu-system-x86_64") if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"not installed: {', '.join(missing)} (tools/dev setup installs them)")
    return build(tmp_path_factory.mktemp("tiny-image"))
