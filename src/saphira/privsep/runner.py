"""The one door: run a root command, optionally inside a network namespace."""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Sequence

from saphira.exception import SaphiraError

LOG = logging.getLogger(__name__)
TIMEOUT = 30.0


class PrivsepError(SaphiraError):
    msg_fmt = "%(command)s failed (exit status %(status)s): %(detail)s"


def run(
    argv: Sequence[str],
    *,
    namespace: str | None = None,
    stdin: str | None = None,
    check: bool = True,
    timeout: float = TIMEOUT,
) -> str:
    """stdout of ``argv`` (inside ``namespace`` if given); PrivsepError on failure.

    ``check=False`` returns stdout whatever the exit status: for probes such
    as "does this link exist" where failure is an answer.
    """
    full = ["ip", "netns", "exec", namespace, *argv] if namespace else list(argv)
    LOG.debug("privsep: %s", " ".join(full))
    try:
        done = subprocess.run(
            full, input=stdin, capture_output=True, text=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise PrivsepError(command=full[0], status="-", detail=str(error)) from None
    if check and done.returncode != 0:
        detail = (done.stderr or done.stdout).strip()[-500:]
        raise PrivsepError(command=" ".join(full[:4]), status=done.returncode, detail=detail)
    return done.stdout


def spawn(argv: Sequence[str]) -> subprocess.Popen[str]:
    """A long-running root command whose stdout the caller reads line by line.

    The caller owns the process: it must terminate and wait for it.
    """
    LOG.debug("privsep: spawn %s", " ".join(argv))
    try:
        return subprocess.Popen(
            list(argv), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1
        )
    except OSError as error:
        raise PrivsepError(command=argv[0], status="-", detail=str(error)) from None
