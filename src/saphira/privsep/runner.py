"""Inside the helper: run one fixed command, optionally inside a network namespace.

Only the entry points of the named modules call this (in the helper daemon);
services never do: they call the entry points, which build the argv.
"""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Sequence

from saphira.privsep.errors import PrivsepError

__all__ = ["PrivsepError", "run"]

LOG = logging.getLogger(__name__)
TIMEOUT = 30.0


def run(
    argv: Sequence[str],
    *,
    namespace: str | None = None,
    stdin: str | None = None,
    check: bool = True,
    accept: tuple[int, ...] = (0,),
    timeout: float = TIMEOUT,
) -> str:
    """stdout of ``argv`` (inside ``namespace`` if given); PrivsepError on failure.

    ``check=False`` returns stdout whatever the exit status: for probes such
    as "does this link exist" where failure is an answer; ``accept`` lists the
    exit statuses that are answers rather than failures.
    """
    full = ["ip", "netns", "exec", namespace, *argv] if namespace else list(argv)
    LOG.debug("privsep: %s", " ".join(full))
    try:
        done = subprocess.run(
            full, input=stdin, capture_output=True, text=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise PrivsepError(command=full[0], status="-", detail=str(error)) from None
    if check and done.returncode not in accept:
        detail = (done.stderr or done.stdout).strip()[-500:]
        raise PrivsepError(command=" ".join(full[:4]), status=done.returncode, detail=detail)
    return done.stdout
