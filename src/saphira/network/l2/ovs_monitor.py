"""Waking the L2 agent when Open vSwitch's interfaces change.

libvirt adds a guest's tap after the port was bound, and the guest stays
paused until the port is reported up: waiting for the next poll would add
up to ``[agent] polling_interval`` to every boot. Like Neutron's OVS agent,
we watch OVSDB instead (``ovsdb-client monitor``, run by the privileged
helper: ``privsep.ovs_watch``) and reconcile on every Interface change; the
poll remains as the safety net.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from saphira.exception import SaphiraError
from saphira.privsep import ovs_watch

LOG = logging.getLogger(__name__)
RESPAWN_DELAY = 1.0  # seconds; ovsdb-server restarting must not become a busy loop
LONG_POLL = 2  # seconds per call: how long stop() may wait for the watching thread


class InterfaceMonitor:
    def __init__(self, wake: Callable[[], None]) -> None:
        self.wake = wake
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ovsdb-monitor", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stopped.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        seen = -1
        while not self._stopped.is_set():
            try:
                count = ovs_watch.changes(seen, LONG_POLL)
            except SaphiraError as error:
                LOG.warning("cannot watch OVSDB (%s); polling only", error.message)
                self._stopped.wait(RESPAWN_DELAY)
                continue
            if count != seen and not self._stopped.is_set():
                self.wake()
            seen = count
