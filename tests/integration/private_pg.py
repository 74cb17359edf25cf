"""A PostgreSQL server of the test's own, for the tests that kill the database (the
process deployment's faults, the test bed's controller).

The suite's server is shared, so it is never killed: this one has its own data
directory (initdb, as the postgres user), port and socket directory (trusted:
only root and postgres reach it), a ``saphira`` role with a password over TCP,
and is SIGKILLed and started again by the PID the test holds.
``private_postgresql`` stops it (SIGKILL: its data is thrown away) and removes
its directory.
"""

from __future__ import annotations

import os
import pwd
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.scratch import traversable_dir
from tests.sockets import free_port

BIN = Path("/usr/lib/postgresql/15/bin")
PASSWORD = "saphira-test"


class PrivatePostgres:
    def __init__(self, base: Path) -> None:
        self.base, self.data, self.port = base, base / "data", free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.user = pwd.getpwnam("postgres")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://saphira:{PASSWORD}@127.0.0.1:{self.port}"

    def _as_postgres(self, *args: str) -> None:
        subprocess.run(args, check=True, capture_output=True, user=self.user.pw_uid,
                       group=self.user.pw_gid, cwd=self.base, timeout=120)  # fmt: skip

    def init(self) -> None:
        os.chown(self.base, self.user.pw_uid, self.user.pw_gid)
        self._as_postgres(
            str(BIN / "initdb"), "-D", str(self.data), "--auth-local=trust",
            "--auth-host=md5", "-U", "postgres", f"--pwfile={self._pwfile()}",
        )  # fmt: skip
        self.start()
        self._as_postgres(
            str(BIN / "psql"), "-h", str(self.base), "-p", str(self.port), "-U", "postgres",
            "-d", "postgres", "-c", f"CREATE ROLE saphira LOGIN CREATEDB PASSWORD '{PASSWORD}'",
        )  # fmt: skip

    def _pwfile(self) -> Path:
        path = self.base / "pw"
        path.write_text(PASSWORD)
        os.chown(path, self.user.pw_uid, self.user.pw_gid)
        return path

    def start(self) -> None:
        with open(self.base / "server.log", "ab") as log:
            self.process = subprocess.Popen(
                [str(BIN / "postgres"), "-D", str(self.data), "-p", str(self.port),
                 "-k", str(self.base), "-h", "127.0.0.1"],
                stdout=log, stderr=subprocess.STDOUT, user=self.user.pw_uid,
                group=self.user.pw_gid, env={"PGPASSWORD": PASSWORD},
            )  # fmt: skip
        deadline = time.monotonic() + 60
        while not self._ready():
            if self.process.poll() is not None or time.monotonic() > deadline:
                log_text = (self.base / "server.log").read_text(errors="replace")
                pytest.fail(f"private PostgreSQL did not start:\n{log_text[-3000:]}")
            time.sleep(0.2)

    def _ready(self) -> bool:
        check = [str(BIN / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port), "-q"]
        return subprocess.run(check, check=False, timeout=30).returncode == 0

    def kill(self) -> None:
        """SIGKILL the postmaster; its backends notice and exit on their own."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.process = None

    def restart(self) -> None:
        """Start again on the data a killed server left (crash recovery), once the old
        backends let go of the shared memory."""
        deadline = time.monotonic() + 30
        while (self.data / "postmaster.pid").exists() and time.monotonic() < deadline:
            try:
                self.start()
                return
            except pytest.fail.Exception:
                time.sleep(1)
        self.start()


@contextmanager
def private_postgresql() -> Iterator[PrivatePostgres]:
    with traversable_dir("saphira-pg-") as base:
        server = PrivatePostgres(base)
        try:
            server.init()
            yield server
        finally:
            if server.process is not None:
                server.kill()
