"""Run one QEMU probe guest and watch its serial console for a marker.

Separate from the decision logic (``kvm_probe``) so tests can swap in a fake
runner. The QEMU started here is always killed by its own PID before returning.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

POLL_SECONDS = 0.05


@dataclass(frozen=True)
class ProbeRun:
    """What happened to one probe guest: booted (marker seen) or why not."""

    booted: bool
    seconds: float
    detail: str


def _tail(path: Path, limit: int = 160) -> str:
    try:
        text = path.read_bytes()[-limit:].decode(errors="replace")
    except OSError:
        return ""
    return " ".join(text.split())


def run_qemu(argv: list[str], serial_log: Path, timeout: float, marker: str) -> ProbeRun:
    """Start argv (which writes its serial console to serial_log) and wait for marker."""
    serial_log.unlink(missing_ok=True)
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
    except OSError as exc:
        return ProbeRun(False, 0.0, f"cannot start {argv[0]}: {exc}")
    needle = marker.encode()
    exited = False
    try:
        while time.monotonic() - started < timeout:
            if serial_log.is_file() and needle in serial_log.read_bytes():
                return ProbeRun(True, time.monotonic() - started, "marker seen")
            if proc.poll() is not None:
                exited = True
                break
            time.sleep(POLL_SECONDS)
    finally:
        if proc.poll() is None:
            proc.kill()
        _, err = proc.communicate()
    elapsed = time.monotonic() - started
    stderr = " ".join(err.decode(errors="replace").split())[-300:]
    if exited:
        what = f"QEMU exited with status {proc.returncode}"
    else:
        what = f"no marker on the serial console within {timeout:g} s"
    console = _tail(serial_log)
    return ProbeRun(
        False,
        elapsed,
        f"{what}; stderr: {stderr or '(empty)'}; console: {console or '(empty)'}",
    )
