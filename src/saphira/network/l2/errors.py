"""Errors of the L2 agent's host side."""

from __future__ import annotations

from saphira.exception import SaphiraError


class L2Error(SaphiraError):
    msg_fmt = "L2 agent: %(detail)s"
