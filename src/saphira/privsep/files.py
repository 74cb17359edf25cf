"""Reading what root's daemons wrote for a guest (a helper entry point).

virtlogd writes each guest's console log as root, mode 0600, so the
services (the ``saphira`` user) read its tail through the helper, as Nova
does (``nova.privsep.path.last_bytes``). Only a regular file named
``console.log`` is read, never through a symbolic link, and at most
``MAX_BYTES`` of it.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from saphira.privsep import validate
from saphira.privsep.context import entrypoint

NAME = "console.log"
MAX_BYTES = 16 * 1024 * 1024


def console_path(value: object) -> str:
    text = validate.path(value)
    if os.path.basename(text) != NAME:
        raise validate.InvalidArgument(detail=f"console log {value!r}")
    return text


@entrypoint
def console_tail(path: str, limit: int) -> bytes:
    """The last ``limit`` bytes of a console log; empty when there is none yet."""
    path = console_path(path)
    limit = validate.integer(limit, 1, MAX_BYTES, "limit")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return b""
    with os.fdopen(fd, "rb") as log:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise validate.InvalidArgument(detail=f"console log {path!r} is not a regular file")
        return last_bytes(log, limit)


def last_bytes(log: BinaryIO, limit: int) -> bytes:
    """The last ``limit`` bytes of an open file (a plain function: the services' own too)."""
    size = log.seek(0, os.SEEK_END)
    log.seek(max(0, size - limit))
    return log.read(limit)
