"""When a stopped dnsmasq counts as gone: not before it let go of its sockets."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from saphira.network.dhcp import process


def _child(pidfile: Path) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-c", "import time; time.sleep(60)", f"--pid-file={pidfile}"]
    return subprocess.Popen(argv)


def test_a_running_one_holds_on_and_a_zombie_or_a_reaped_one_does_not(tmp_path: Path) -> None:
    pidfile = tmp_path / "dnsmasq.pid"
    child = _child(pidfile)
    try:
        assert process._holds_on(child.pid, pidfile)
        assert not process._holds_on(child.pid, tmp_path / "another.pid")  # a reused pid
        child.send_signal(signal.SIGKILL)
        deadline = time.monotonic() + 10
        while process._holds_on(child.pid, pidfile) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not process._holds_on(child.pid, pidfile)
        stat = Path(f"/proc/{child.pid}/stat").read_text()  # not reaped yet: a zombie,
        assert stat.rpartition(")")[2].split()[0] == "Z"  # whose files are closed
    finally:
        child.kill()
        child.wait()
    assert not process._holds_on(child.pid, pidfile)  # reaped
