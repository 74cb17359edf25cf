"""Boot the tiny guest under QEMU for tests: serial console to a file, killed by PID."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

QEMU = "qemu-system-x86_64"


class Guest:
    """One QEMU process; ``with Guest(...) as g`` guarantees it is killed."""

    def __init__(self, workdir: Path, args: list[str], accel: str = "tcg") -> None:
        self.serial = workdir / "serial.log"
        self.serial.unlink(missing_ok=True)
        self.argv = [
            QEMU, "-accel", accel, "-m", "256", "-smp", "1", "-nodefaults", "-no-reboot",
            "-display", "none", "-monitor", "none", "-serial", f"file:{self.serial}", *args,
        ]  # fmt: skip
        self.qmp_path = workdir / "qmp.sock"
        self.argv += ["-qmp", f"unix:{self.qmp_path},server=on,wait=off"]
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Guest:
        self.proc = subprocess.Popen(
            self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate(timeout=30)

    def console(self) -> str:
        try:
            return self.serial.read_bytes().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def qmp(self, command: str) -> None:
        """Send one QMP command (e.g. system_powerdown, the ACPI power button)."""
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(str(self.qmp_path))
            stream = sock.makefile("rw")
            stream.readline()  # greeting
            for name in ("qmp_capabilities", command):
                stream.write(json.dumps({"execute": name}) + "\n")
                stream.flush()
                while "return" not in (reply := json.loads(stream.readline())):
                    assert "error" not in reply, reply

    def wait_exit(self, timeout: float) -> int:
        assert self.proc is not None
        return self.proc.wait(timeout=timeout)

    def wait_for(self, text: str, timeout: float = 90.0) -> str:
        """The console once it contains text; fails with the console so far otherwise."""
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            out = self.console()
            if text in out:
                return out
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"{text!r} not on the console; QEMU rc={self.proc.poll()}:\n{out}")


def direct_boot_args(kernel: Path, initrd: Path, cmdline: str) -> list[str]:
    return ["-kernel", str(kernel), "-initrd", str(initrd), "-append", cmdline]


def user_nic(*extra: str) -> list[str]:
    """A user-mode NIC that can reach nothing outside QEMU (restrict=on)."""
    return ["-nic", ",".join(["user", "model=virtio-net-pci", "restrict=on", *extra])]
