"""Scratch directories that daemons running as other users can reach."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def traversable_dir(prefix: str, parent: str | None = None) -> Iterator[Path]:
    """A 0711 directory, removed afterwards.

    pytest's temporary directories are 0700 under a 0700 root, which QEMU
    (its own user) and dnsmasq (nobody) cannot pass through, and which the
    libvirt driver rightly refuses as an instances_path.
    """
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    path.chmod(0o711)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
