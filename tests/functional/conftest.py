"""Fixtures for the functional tier: a real `saphira up` per test module, and one cloud
with real guests on a provider network that several modules share."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.functional.cloud import Cloud, start_cloud
from tests.functional.guest_cloud import guest_cloud


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    """One cloud shared by a module's tests; stopped with SIGTERM, which must exit 0."""
    running = start_cloud(str(tmp_path_factory.mktemp("cloud")))
    yield running
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()


@dataclass(frozen=True)
class ProviderCloud:
    cloud: Cloud
    bridge: str  # the Open vSwitch bridge physnet1 is mapped to


@pytest.fixture(scope="session")
def provider_cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProviderCloud]:
    """`saphira up` with libvirt (TCG), Open vSwitch, dnsmasq, the DHCP namespace's metadata
    proxy and `provider` on a bridge of its own. A cloud costs a start and a stop: the
    modules that need only this one share it (they are all in the ``libvirt`` xdist group,
    so one worker makes it once); each removes what it made, `saphira purge` the rest."""
    bridge = f"sxbr{secrets.token_hex(4)}"
    settings = (
        f"[ovs]\nbridge_mappings = physnet1:{bridge}\n[neutron]\nservice_metadata_proxy = true\n"
        f"metadata_proxy_shared_secret = {secrets.token_urlsafe(12)}\n"
    )
    where = tmp_path_factory.mktemp("provider-cloud")
    with guest_cloud("provider", where, settings) as running:
        yield ProviderCloud(running[0], bridge)
