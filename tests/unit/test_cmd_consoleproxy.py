"""saphira-spicehtml5proxy and saphira-serialproxy alone: off, they refuse to start."""

from __future__ import annotations

import pytest

from saphira import conf as saphira_conf
from saphira.cmd.consoleproxy import SerialProxyService, SpiceProxyService
from saphira.exception import ServiceError


@pytest.mark.parametrize(
    ("service", "group"),
    [(SpiceProxyService, "spice"), (SerialProxyService, "serial_console")],
)
def test_a_disabled_console_types_proxy_refuses_to_start(
    service: type[SpiceProxyService | SerialProxyService], group: str
) -> None:
    conf = saphira_conf.load([])
    with pytest.raises(ServiceError, match=rf"\[{group}\] enabled is off"):
        service(conf)
