"""A child process the tests start, wait for, signal by PID and always reap.

Readiness is a line on the child's stdout (``saphira up: ready: ...`` or
``saphira-conductor: ready``); stderr goes to a log file that failures quote.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without the caller's OS_* settings, which would leak into clients."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(extra)
    return env


@dataclass
class ManagedProcess:
    label: str
    log_path: Path
    is_ready: Callable[[str], bool]
    ready_timeout: float = 90.0
    stop_timeout: float = 20.0
    proc: subprocess.Popen[str] | None = None
    stdout_lines: list[str] = field(default_factory=list)
    _ready: threading.Event = field(default_factory=threading.Event)
    _reader: threading.Thread | None = None

    def launch(
        self,
        args: list[str],
        *,
        env: dict[str, str] | None = None,
        ids: tuple[int, int, list[int]] | None = None,
    ) -> None:
        """Start and wait for the readiness line; raise with the log if it never comes.

        ``env`` adds to the environment; ``ids`` (uid, gid, groups) runs the
        child as another user, as systemd's User= would.
        """
        self._ready.clear()
        self.stdout_lines = []
        uid, gid, groups = ids if ids is not None else (None, None, None)
        with open(self.log_path, "a", encoding="utf-8") as log:  # the child keeps its copy
            self.proc = subprocess.Popen(
                args, stdout=subprocess.PIPE, stderr=log, text=True,
                env=clean_env(**(env or {})), user=uid, group=gid, extra_groups=groups,
            )  # fmt: skip
        self._reader = threading.Thread(target=self._read, args=(self.proc,), daemon=True)
        self._reader.start()
        deadline = time.monotonic() + self.ready_timeout
        while not self._ready.wait(0.1):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                code = self.proc.poll()
                self.kill()
                raise RuntimeError(f"{self.label} did not get ready (exit {code}):\n{self.log()}")

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self.stdout_lines.append(line.rstrip("\n"))
            if self.is_ready(line.rstrip()):
                self._ready.set()

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8") if self.log_path.exists() else ""

    def stop(self, signum: int = signal.SIGTERM) -> int:
        """Signal the process by PID; its exit status (the caller asserts it)."""
        assert self.proc is not None
        self.proc.send_signal(signum)
        try:
            return self.proc.wait(timeout=self.stop_timeout)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGUSR2)  # a saphira service writes its stacks
            time.sleep(2)
            raise AssertionError(
                f"{self.label} did not stop within {self.stop_timeout:g} s; its log, with its "
                f"threads' stacks where it writes them:\n{self.log()[-20000:]}"
            ) from None
        finally:
            self.kill()

    def kill(self) -> None:
        """Make sure the process is gone and its pipe closed."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self._reader is not None:
            self._reader.join(timeout=10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
