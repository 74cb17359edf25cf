"""ensure_running on this host, where the test command already started libvirt.

That is the "already running" path: nothing is started, nothing is stopped.
"""

from __future__ import annotations

import libvirt
import pytest

from saphira.virt.libvirt import daemons, machine

pytestmark = pytest.mark.integration


def test_libvirt_is_available_and_answers() -> None:
    assert daemons.unavailable_reason() is None
    report = daemons.ensure_running(daemons.DEFAULT_URI)
    assert report.started == []
    assert report.lines()[-1].endswith(f"at {daemons.DEFAULT_URI}: already running")
    conn = libvirt.open(daemons.DEFAULT_URI)
    try:
        assert machine.version_string(conn.getLibVersion()) == report.version
        assert report.daemon in ("libvirtd", "virtqemud")
    finally:
        conn.close()


def test_a_second_call_starts_nothing_either() -> None:
    before = {d: machine.Host().running(d) for d in ("virtlogd", "libvirtd", "virtqemud")}
    assert daemons.ensure_running().started == []
    assert {d: machine.Host().running(d) for d in before} == before
