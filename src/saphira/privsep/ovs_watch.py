"""Open vSwitch's Interface table changes, watched inside the helper, long-polled by agents.

``ovsdb-client monitor`` needs OVSDB's socket, which only root may open, and
a privsep entry point cannot hand back a pipe; so the helper runs one monitor
for all its callers and counts the JSON lines it prints (one per batch of
Interface rows added, changed or deleted). ``changes(seen, timeout)`` returns
the count as soon as it differs from ``seen``, or after ``timeout`` seconds.
A monitor that ended (ovsdb-server restarted) is started again, at most once a second;
one nobody asked about for ``IDLE_STOP`` seconds (the agents stopped) is ended.
"""

from __future__ import annotations

import atexit
import subprocess
import threading
import time

from saphira.privsep import validate
from saphira.privsep.context import entrypoint
from saphira.privsep.runner import PrivsepError

ARGV = ("ovsdb-client", "monitor", "Open_vSwitch", "Interface", "name,ofport,external_ids",
        "--format=json")  # fmt: skip
MAX_WAIT = 30  # seconds a caller may hold one of the helper's threads
RESPAWN_DELAY = 1.0  # seconds; ovsdb-server restarting must not become a busy loop
IDLE_STOP = 5.0  # seconds without a caller after which the monitor ends


class _Watch:
    def __init__(self) -> None:
        self.count = 0
        self.changed = threading.Condition()
        self.proc: subprocess.Popen[str] | None = None
        self.started = -RESPAWN_DELAY
        self.waiters = 0
        self.last_call = time.monotonic()

    def _ensure_running(self) -> None:
        """Under ``changed``: (re)start the monitor, at most once per RESPAWN_DELAY."""
        if self.proc is not None and self.proc.poll() is None:
            return
        if time.monotonic() - self.started < RESPAWN_DELAY:
            return
        self.started = time.monotonic()
        try:
            self.proc = subprocess.Popen(
                ARGV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1
            )
        except OSError as error:
            raise PrivsepError(command=ARGV[0], status="-", detail=str(error)) from None
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()
        threading.Thread(target=self._end_when_idle, args=(self.proc,), daemon=True).start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for _line in proc.stdout:
            with self.changed:
                self.count += 1
                self.changed.notify_all()
        proc.wait()
        proc.stdout.close()

    def _end_when_idle(self, proc: subprocess.Popen[str]) -> None:
        while proc.poll() is None:
            time.sleep(RESPAWN_DELAY)
            with self.changed:
                idle = not self.waiters and time.monotonic() - self.last_call > IDLE_STOP
            if idle:
                proc.terminate()

    def wait(self, seen: int, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        with self.changed:
            self.waiters += 1
            try:
                self._ensure_running()
                while self.count == seen:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    self.changed.wait(min(remaining, RESPAWN_DELAY))
                    self._ensure_running()
                return self.count
            finally:
                self.waiters -= 1
                self.last_call = time.monotonic()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()


_watch = _Watch()
atexit.register(_watch.stop)


@entrypoint
def changes(seen: int, timeout: int) -> int:
    """The number of Interface changes seen so far, once it is not ``seen`` (or on timeout)."""
    seen = validate.integer(seen, -1, 2**62, "change count")
    timeout = validate.integer(timeout, 0, MAX_WAIT, "timeout")
    return _watch.wait(seen, timeout)
