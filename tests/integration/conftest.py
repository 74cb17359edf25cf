"""Fixtures shared by the integration tiers that boot real guests."""

from __future__ import annotations

import pytest

from saphira.guest_image import GuestImage, build, shared
from tests import image_cache
from tests.environment import IMAGE_BUILD_TOOLS, require_tools


@pytest.fixture(scope="session")
def tiny_image(tmp_path_factory: pytest.TempPathFactory) -> GuestImage:
    """The tiny image, built once per test session (the .debs stay in the user cache):
    in a root session the one build its `saphira up --test-image` clouds share
    (tests/image_cache.py; the tests only read it).

    The test command installs every tool it needs, so a missing one fails.
    """
    require_tools(*IMAGE_BUILD_TOOLS, "qemu-system-x86_64")
    if image_cache.prepare():
        with shared(image_cache.CACHE) as image:
            return image
    return build(tmp_path_factory.mktemp("tiny-image"))
