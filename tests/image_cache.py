"""One build of the tiny image for every `saphira up --test-image` of a test run.

`saphira up` builds the test image in the image cache of the user it runs as;
dropped to the saphira user, that is ``<state>/.cache`` (its HOME is the state
directory), so each fresh cloud built it anew: ~10 s of every test-image
cloud's start (the .debs copied, the initramfs and the disk made). The build
is deterministic (tests/integration/guest/test_image_build.py), so a root
session points ``SAPHIRA_IMAGE_CACHE`` at one cache of the saphira user's,
built once before the first such cloud starts; every cloud still copies the
image into its own state and registers it as a first start does.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

from saphira import guest_image
from saphira.service import unprivileged

CACHE = Path("/var/tmp/saphira-tests-image-cache")
VARIABLE = "SAPHIRA_IMAGE_CACHE"
USER = "saphira"


def choose(config: pytest.Config) -> None:
    """In a root session's controller (its workers inherit the environment)."""
    if os.geteuid() != 0 or hasattr(config, "workerinput") or VARIABLE in os.environ:
        return
    os.environ[VARIABLE] = str(CACHE)


def prepare() -> bool:
    """Whether this session shares a build; if so it is made (once per process:
    the cache's lock serialises the workers) and given to the user `saphira up`
    drops to. A test that unsets the variable gets no shared build."""
    cache = os.environ.get(VARIABLE)
    if cache is None or Path(cache) != CACHE:
        return False
    _build_and_give()
    return True


@functools.cache
def _build_and_give() -> None:
    account = unprivileged.ensure_user(USER)
    with guest_image.shared(CACHE):
        for root, dirs, files in os.walk(CACHE):
            for name in [".", *dirs, *files]:
                os.lchown(os.path.join(root, name), account.uid, account.gid)
