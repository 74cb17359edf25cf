"""One libvirt connection per compute host, its event loop, and reconnection.

libvirt delivers domain events and notices a dead daemon (keepalive, close
callback) only while an event loop runs, so one loop thread serves the
process. A connection that dies is dropped, not retried on every call: the
agent's heartbeat asks ``alive()``, which reopens it, so a dead daemon shows
as the service being down until it is back.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

import libvirt

from saphira.virt.errors import VirtError

LOG = logging.getLogger(__name__)
DEFAULT_URI = "qemu:///system"
KEEPALIVE = (5, 3)  # probe every 5 s, give up after 3 missed answers

DomainEvent = Callable[[str, int, int], None]  # uuid, event, detail


class _EventLoop:
    """libvirt's default event loop in one daemon thread, started once.

    A one-second timer makes the loop return regularly, so ``stop()`` is
    seen without a pending event.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._registered = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def acquire(self) -> None:
        with self._lock:
            self._users += 1
            if not self._registered:
                libvirt.virEventRegisterDefaultImpl()
                libvirt.virEventAddTimeout(1000, lambda *_: None, None)
                self._registered = True
            if self._thread is None:
                self._stop.clear()
                self._thread = threading.Thread(
                    target=self._run, name="libvirt-events", daemon=True
                )
                self._thread.start()

    def release(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users > 0 or self._thread is None:
                return
            self._stop.set()
            thread, self._thread = self._thread, None
        thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.is_set():
            if libvirt.virEventRunDefaultImpl() < 0:
                LOG.error("libvirt event loop failed; stopping it")
                return


_LOOP = _EventLoop()


class Host:
    """The connection a driver uses; ``conn()`` raises when libvirt is gone."""

    def __init__(self, uri: str = "", on_event: DomainEvent | None = None) -> None:
        self.uri = uri or DEFAULT_URI
        self._on_event = on_event
        self._conn: Any = None
        self._lost: str | None = None
        self._closed_by_libvirt: list[Any] = []
        self._lock = threading.Lock()
        self._started = False

    def start(self) -> None:
        """Start the event loop and connect; VirtError says why it cannot."""
        if not self._started:
            _LOOP.acquire()
            self._started = True
        self.conn()

    def stop(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            _close_quietly(conn)
        if self._started:
            self._started = False
            _LOOP.release()

    def conn(self) -> Any:
        """The open connection, opening it if needed."""
        with self._lock:
            if self._conn is not None:
                return self._conn
            while self._closed_by_libvirt:  # out of their callback now: safe to close
                _close_quietly(self._closed_by_libvirt.pop())
            self._conn = self._open()
            if self._lost is not None:
                LOG.warning("libvirt at %s is back (was lost: %s)", self.uri, self._lost)
                self._lost = None
            return self._conn

    def alive(self) -> bool:
        """Whether libvirt answers now; reconnects a lost connection."""
        try:
            conn = self.conn()
            conn.getLibVersion()
            return True
        except (VirtError, libvirt.libvirtError) as error:
            self._drop(str(error))
            return False

    def _open(self) -> Any:
        try:
            conn = libvirt.open(self.uri)
        except libvirt.libvirtError as error:
            raise VirtError(host=self.uri, reason=f"cannot connect to libvirt: {error}") from None
        if self._started:
            conn.registerCloseCallback(self._closed, None)
            conn.setKeepAlive(*KEEPALIVE)
            if self._on_event is not None:
                conn.domainEventRegisterAny(
                    None, libvirt.VIR_DOMAIN_EVENT_ID_LIFECYCLE, self._lifecycle, None
                )
        return conn

    def _closed(self, _conn: Any, reason: int, _opaque: Any) -> None:
        """libvirt closed it: forget it. libvirt calls this in whichever thread saw the
        close, even inside one of the connection's calls (a build's createWithFlags),
        holding the callback's lock: unregistering it here would wait for that lock
        forever, so the next ``conn()`` closes it instead."""
        self._drop(f"connection closed (reason {reason})", close=False)

    def _drop(self, why: str, close: bool = True) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
            first = self._lost is None
            self._lost = why
            if conn is not None and not close:
                self._closed_by_libvirt.append(conn)
        if first:
            LOG.warning("libvirt at %s lost: %s", self.uri, why)
        if close and conn is not None:
            _close_quietly(conn)

    def _lifecycle(self, _conn: Any, dom: Any, event: int, detail: int, _opaque: Any) -> None:
        if self._on_event is None:
            return
        try:
            self._on_event(dom.UUIDString(), event, detail)
        except Exception:  # a callback must never kill libvirt's loop
            LOG.exception("libvirt event handler failed")


def _close_quietly(conn: Any) -> None:
    with contextlib.suppress(libvirt.libvirtError):
        conn.unregisterCloseCallback()
    with contextlib.suppress(libvirt.libvirtError):
        conn.close()
