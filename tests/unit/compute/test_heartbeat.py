"""A compute agent whose hypervisor stops answering stops reporting itself up."""

from __future__ import annotations

from typing import Any

from oslo_config import cfg

from saphira import conf as saphira_conf
from saphira.compute.service import ComputeService
from saphira.rpc.transport import get_rpc_transport
from saphira.virt.fake import FakeDriver


class _Conductor:
    def __init__(self) -> None:
        self.beats: list[tuple[str, str]] = []

    def service_heartbeat(self, _ctxt: Any, host: str, binary: str, topic: str) -> None:
        self.beats.append((host, binary))


class _Moody(FakeDriver):
    """A fake hypervisor whose daemon can be "killed" and "restarted"."""

    alive = True

    def healthy(self) -> bool:
        return self.alive


def test_heartbeats_pause_while_the_hypervisor_is_unreachable() -> None:
    conf: cfg.ConfigOpts = saphira_conf.load([])
    driver = _Moody("h1", "h1")
    transport = get_rpc_transport(conf, "inproc://heartbeat-test")
    service = ComputeService(conf, "h1", [driver], transport, placement=None)  # type: ignore[arg-type]
    conductor = _Conductor()
    service.conductor = conductor  # type: ignore[assignment]

    service.heartbeat()
    driver.alive = False
    service.heartbeat()
    service.heartbeat()
    driver.alive = True
    service.heartbeat()

    assert conductor.beats == [("h1", "nova-compute"), ("h1", "nova-compute")]
