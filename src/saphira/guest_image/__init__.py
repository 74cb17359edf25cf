"""The tiny test guest image ("our CirrOS"), built from Debian packages only.

``build(out_dir)`` returns a ``GuestImage`` (``shared()``: the user cache's
one build, locked while used); ``python -m
saphira.guest_image`` (``tools/build-test-image``) is the command.
"""

from saphira.guest_image.build import CMDLINE, DISK_NAME, GuestImage, build, shared
from saphira.guest_image.debs import ImageBuildError, default_cache_dir
from saphira.guest_image.guest_init import (
    BOOTED,
    HTTP_BODY,
    HTTP_PORT,
    MARKER,
    POWER_OFF,
    PROBE_PATH,
    READY,
)

__all__ = [
    "BOOTED",
    "CMDLINE",
    "DISK_NAME",
    "HTTP_BODY",
    "HTTP_PORT",
    "MARKER",
    "POWER_OFF",
    "PROBE_PATH",
    "READY",
    "GuestImage",
    "ImageBuildError",
    "build",
    "default_cache_dir",
    "shared",
]
