"""The real `openstack` CLI, without paying its import on every command.

Each command runs in a process of its own, with the caller's argv and
environment, its stdout and stderr captured, its exit status returned, and a
timeout that kills it: what ``subprocess.run(["openstack", ...])`` gives. The
difference is where that process comes from. Importing openstackclient takes
about 1.3 s of CPU and a command itself 0.1-0.5 s, and the suite runs hundreds
of commands on a 2-core machine. So each command is forked from a server that
imported ``openstackclient.shell`` once (this file run as a script), and runs
``openstackclient.shell.main`` as the ``openstack`` script does. Only the import
is shared: every command starts from the same freshly imported state.

A server runs one command at a time; callers at the same moment get servers of
their own. Servers end with the test process (their stdin closes). The
``openstack`` script itself runs whole where it is what is tested (the openrc
test in test_cloud_lifecycle.py, and ``binary=True``).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

OPENSTACK = str(Path(sys.executable).parent / "openstack")


@dataclass
class _Server:
    process: subprocess.Popen[str]

    @classmethod
    def start(cls) -> _Server:
        process = subprocess.Popen(
            [sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )  # each command gets the caller's whole environment, not the server's
        return cls(process)

    def run(self, argv: list[str], env: dict[str, str], timeout: float, out: str, err: str) -> int:
        """The command's exit status; TimeoutExpired past ``timeout`` (the server killed
        the command, its own child not yet reaped, so no other process can have its PID)."""
        stdin, answers = self.process.stdin, self.process.stdout
        assert stdin is not None and answers is not None
        request = {"argv": argv, "env": env, "out": out, "err": err, "timeout": timeout}
        stdin.write(json.dumps(request) + "\n")
        stdin.flush()
        line = answers.readline()
        if not line:
            raise RuntimeError(f"the CLI fork server ended ({self.process.wait()})")
        reply = json.loads(line)
        if reply["timed_out"]:
            raise subprocess.TimeoutExpired([OPENSTACK, *argv], timeout)
        status: int = reply["status"]
        return status

    def close(self) -> None:
        """End the server: its stdin closes, and it ends after the command it runs."""
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()
        self.process.wait(timeout=CLOSE_WAIT)


CLOSE_WAIT = 30.0
_IDLE: list[_Server] = []
_LOCK = threading.Lock()


@atexit.register
def _close_idle() -> None:
    with _LOCK:
        while _IDLE:
            _IDLE.pop().close()


def run(
    argv: list[str], env: dict[str, str], timeout: float, *, binary: bool = False
) -> subprocess.CompletedProcess[str]:
    """``openstack ARGV`` with ``env``; TimeoutExpired (the process killed) past ``timeout``."""
    if binary:
        return subprocess.run(
            [OPENSTACK, *argv], capture_output=True, text=True, env=env, timeout=timeout,
            check=False,
        )  # fmt: skip
    with _LOCK:
        server = _IDLE.pop() if _IDLE else None
    server = server or _Server.start()
    with tempfile.TemporaryDirectory(prefix="saphira-cli-") as scratch:
        out, err = os.path.join(scratch, "out"), os.path.join(scratch, "err")
        try:
            status = server.run(argv, env, timeout, out, err)
        except subprocess.TimeoutExpired:
            _give_back(server)  # it killed and reaped its command: it serves on
            raise
        except BaseException:
            server.close()
            raise
        found = [Path(path).read_text(errors="replace") for path in (out, err)]
    _give_back(server)
    return subprocess.CompletedProcess([OPENSTACK, *argv], status, *found)


def openstack(
    clouds_yaml: str | Path,
    *args: str,
    cloud: str = "admin",
    timeout: float = 120,
    check: bool = True,
) -> Any:
    """``openstack --os-cloud CLOUD ARGS`` with this clouds.yaml and none of the caller's
    OS_* settings: parsed JSON when -f json is among ``args``, else the output; with
    ``check=False`` the completed command, whatever its status."""
    # Imported here, not at the top: this file is also the fork server's script, which
    # runs without the tests package on its path.
    from tests.functional.process import clean_env

    env = clean_env(OS_CLIENT_CONFIG_FILE=str(clouds_yaml))
    result = run(["--os-cloud", cloud, *args], env, timeout)
    if not check:
        return result
    assert result.returncode == 0, f"openstack {' '.join(args)}: {result.stderr}"
    return json.loads(result.stdout) if "json" in args else result.stdout


def _give_back(server: _Server) -> None:
    with _LOCK:
        _IDLE.append(server)


def _command(request: dict[str, Any]) -> None:
    """In the forked child: become ``openstack ARGV``; never returns."""
    status = 1
    try:
        os.environ.clear()
        os.environ.update(request["env"])
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        for fd, key in ((1, "out"), (2, "err")):
            os.dup2(os.open(str(request[key]), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # as a new process has: the server's pipes
        argv = [str(arg) for arg in request["argv"]]
        sys.argv = [OPENSTACK, *argv]
        from openstackclient import shell

        status = shell.main(argv) or 0
    except SystemExit as exited:
        status = exited.code if isinstance(exited.code, int) else 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


def _serve() -> None:
    """Read one request per line; fork the command; answer its status once it ended, or
    once the server killed it at its timeout."""
    sys.argv = [OPENSTACK]  # the program's name, which cliff reads as it is imported
    from openstackclient import shell  # noqa: F401  (the import the children share)

    answers = os.fdopen(os.dup(1), "w")
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _command(request)
        ended = os.pidfd_open(pid)
        timed_out = not select.select([ended], [], [], float(request["timeout"]))[0]
        if timed_out:
            os.kill(pid, signal.SIGKILL)  # its child, not reaped yet: the PID is still its
        os.close(ended)
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        answers.write(json.dumps({"status": status, "timed_out": timed_out}) + "\n")
        answers.flush()


if __name__ == "__main__":
    _serve()
