"""What a privileged operation raises when its command fails."""

from __future__ import annotations

from saphira.exception import SaphiraError


class PrivsepError(SaphiraError):
    msg_fmt = "%(command)s failed (exit status %(status)s): %(detail)s"
