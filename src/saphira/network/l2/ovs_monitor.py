"""Waking the L2 agent when Open vSwitch's interfaces change.

libvirt adds a guest's tap after the port was bound, and the guest stays
paused until the port is reported up: waiting for the next poll would add
up to ``[agent] polling_interval`` to every boot. Like Neutron's OVS agent,
we watch OVSDB instead (``ovsdb-client monitor``) and reconcile on every
Interface change; the poll remains as the safety net.
"""

from __future__ import annotations

import logging
import subprocess
import threading
from collections.abc import Callable

from saphira.privsep import ovs
from saphira.privsep.runner import PrivsepError

LOG = logging.getLogger(__name__)
RESPAWN_DELAY = 1.0  # seconds; ovsdb-server restarting must not become a busy loop


class InterfaceMonitor:
    def __init__(self, wake: Callable[[], None]) -> None:
        self.wake = wake
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None
        self._thread = threading.Thread(target=self._run, name="ovsdb-monitor", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stopped.set()
        with self._lock:
            proc = self._proc
        if proc is not None:
            proc.terminate()
        self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stopped.is_set():
            self._watch_once()
            self._stopped.wait(RESPAWN_DELAY)

    def _watch_once(self) -> None:
        with self._lock:
            if self._stopped.is_set():
                return
            try:
                self._proc = proc = ovs.monitor_interfaces()
            except PrivsepError as error:
                LOG.warning("cannot watch OVSDB (%s); polling only", error.message)
                return
        assert proc.stdout is not None
        for _line in proc.stdout:
            self.wake()
        proc.wait()
        proc.stdout.close()
        with self._lock:
            self._proc = None
        if not self._stopped.is_set():
            LOG.warning("ovsdb-client monitor ended (exit %s); starting it again", proc.returncode)
