"""The libvirt connection's close callback (saphira.virt.libvirt.host)."""

from __future__ import annotations

import libvirt
import pytest

from saphira.virt.libvirt.host import Host


class Conn:
    """What Host calls on a libvirt connection, recorded."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def getLibVersion(self) -> int:  # noqa: N802 (libvirt's name)
        return 10_000_000

    def unregisterCloseCallback(self) -> None:  # noqa: N802
        self.calls.append("unregister")

    def close(self) -> None:
        self.calls.append("close")


def test_the_close_callback_forgets_the_connection_and_the_next_call_closes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = [Conn(), Conn()]
    monkeypatch.setattr(libvirt, "open", lambda _uri: made.pop(0))
    host = Host("test:///default")
    first = host.conn()
    host._closed(first, libvirt.VIR_CONNECT_CLOSE_REASON_EOF, None)
    # libvirt may call it inside one of the connection's own calls, holding the lock
    # that unregistering takes: nothing may be called on the connection there.
    assert first.calls == []
    second = host.conn()
    assert second is not first and first.calls == ["unregister", "close"]
    assert host.alive() and second.calls == []
