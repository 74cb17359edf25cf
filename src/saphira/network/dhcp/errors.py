"""Errors of the DHCP agent's host side."""

from __future__ import annotations

from saphira.exception import SaphiraError


class DhcpError(SaphiraError):
    msg_fmt = "DHCP agent: %(detail)s"
