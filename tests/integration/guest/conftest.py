from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from saphira.devtools.guest_image import GuestImage, build

NEEDED = ("apt-get", "dpkg-deb", "mkfs.vfat", "syslinux", "mcopy", "qemu-img")


def _missing() -> list[str]:
    return [tool for tool in (*NEEDED, "qemu-system-x86_64") if shutil.which(tool) is None]


@pytest.fixture(scope="session")
def tiny_image(tmp_path_factory: pytest.TempPathFactory) -> GuestImage:
    """The tiny image, built once per test session (the .debs stay in the user cache)."""
    missing = _missing()
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (tools/dev setup installs them)")
    return build(tmp_path_factory.mktemp("tiny-image"))


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    return tmp_path
