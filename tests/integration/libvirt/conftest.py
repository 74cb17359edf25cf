"""A connection to the host's libvirtd, and domains that are always removed.

The test command starts libvirtd, so a connection failure is a broken test
environment and fails loudly instead of skipping.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libvirt
import pytest

from saphira.virt.libvirt.config import DomainConfig, to_xml

URI = "qemu:///system"
NAME_PREFIX = "saphira-test-"

Define = Callable[[DomainConfig], libvirt.virDomain]


@pytest.fixture(scope="session")
def libvirt_conn() -> Iterator[libvirt.virConnect]:
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
