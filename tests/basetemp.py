"""Where a root test session keeps its temporary directories: its own, and reachable.

`saphira up` started as root drops to the saphira user, and grants that user
search permission (an ACL entry) on each directory that blocks its state
(``saphira.service.reach``). pytest's default root, ``/tmp/pytest-of-root``,
is shared by every session of the machine and chmodded back to 0700 by each
new one, which would take such a grant away from a cloud another session
still runs. So a root session gets a base directory of its own under a 0711
parent, which nothing else touches; sessions older than a day are removed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

PARENT = Path(tempfile.gettempdir()) / "saphira-tests"
KEEP_SECONDS = 86400.0


def _prune(parent: Path) -> None:
    cutoff = time.time() - KEEP_SECONDS
    for entry in parent.iterdir():
        if entry.is_dir() and not entry.is_symlink() and entry.stat().st_mtime < cutoff:
            shutil.rmtree(entry, ignore_errors=True)


def choose(config: pytest.Config) -> None:
    """Unless --basetemp was given, or this is an xdist worker (it takes its controller's)."""
    if os.geteuid() != 0 or config.option.basetemp or hasattr(config, "workerinput"):
        return
    PARENT.mkdir(mode=0o711, exist_ok=True)
    if PARENT.is_symlink() or PARENT.stat().st_uid != 0:
        raise pytest.UsageError(f"{PARENT} is not root's own directory")
    PARENT.chmod(0o711)
    _prune(PARENT)
    config.option.basetemp = tempfile.mkdtemp(prefix="session-", dir=PARENT)
