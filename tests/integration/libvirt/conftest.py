"""A connection to the host's libvirtd, and domains that are always removed.

The test command starts libvirtd, so a connection failure is a broken test
environment and fails loudly instead of skipping.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libvirt
import pytest

from saphira.objects import Instance
from saphira.virt.libvirt.config import DomainConfig, to_xml
from saphira.virt.libvirt.driver import LibvirtDriver
from tests.integration.libvirt.guests import assert_gone, instance, meta

URI = "qemu:///system"
NAME_PREFIX = "saphira-test-"

Define = Callable[[DomainConfig], libvirt.virDomain]


@pytest.fixture
def libvirt_conn() -> Iterator[libvirt.virConnect]:
    """One per test: test_driver_reconnect restarts libvirtd, which ends older connections."""
    try:
        conn = libvirt.open(URI)
    except libvirt.libvirtError as exc:
        pytest.fail(f"cannot connect to {URI}: {exc} (is libvirtd running?)")
    try:
        yield conn
    finally:
        conn.close()


@pytest.fixture
def define(libvirt_conn: libvirt.virConnect) -> Iterator[Define]:
    """Defines domains from our XML; destroys and undefines each one afterwards,
    whether the test passed or not."""
    defined: list[libvirt.virDomain] = []

    def _define(config: DomainConfig) -> libvirt.virDomain:
        assert config.name.startswith(NAME_PREFIX), config.name
        domain = libvirt_conn.defineXML(to_xml(config))
        defined.append(domain)
        return domain

    try:
        yield _define
    finally:
        for domain in defined:
            if domain.isActive():
                domain.destroy()
            domain.undefine()


@pytest.fixture
def server(driver: LibvirtDriver) -> Iterator[Instance]:
    """A spawned guest, destroyed afterwards; the test then finds nothing of it."""
    inst = instance()
    driver.spawn(inst, meta(), ())
    try:
        yield inst
    finally:
        driver.destroy(inst, ())
    assert_gone(driver, inst)
