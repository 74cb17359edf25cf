"""The one error a test bed raises: what failed and why."""

from __future__ import annotations

from saphira.exception import SaphiraError


class TestbedError(SaphiraError):
    __test__ = False  # not a pytest test class, whatever its name
    msg_fmt = "test bed: %(detail)s"
