"""The project's supervisor, for hosts where systemd does not run (these machines).

``python -m saphira.join.supervisor --state-dir S --services F`` runs each
service of ``F`` (``services.dumps``) as its user, its output appended to
``S/log/<name>.log``, its PID in ``S/run/<name>.pid``; a service that dies
is started again after a back-off that doubles up to ``MAX_BACKOFF`` (and
starts over once it has run for ``STABLE`` seconds). SIGTERM stops every
child (SIGKILL after ``STOP_TIMEOUT``) and removes the records. Its own PID
is ``S/run/supervisor.pid``; ``start`` launches it detached unless it runs.
"""

from __future__ import annotations

import argparse
import grp
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from saphira.exception import JoinRefused
from saphira.join import services as svc

FIRST_BACKOFF, MAX_BACKOFF, STABLE, STOP_TIMEOUT, POLL = 1.0, 30.0, 60.0, 20.0, 0.5


@dataclass
class Child:
    service: svc.Service
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    backoff: float = FIRST_BACKOFF
    next_start: float = 0.0
    starts: int = field(default=0)


def _spawn(state_dir: Path, child: Child, now: float) -> None:
    log = svc.log_file(state_dir, child.service.name)
    with log.open("ab") as out:
        out.write(f"--- supervisor: starting {' '.join(child.service.argv)}\n".encode())
        out.flush()
        user = None if child.service.user in ("", "root") else child.service.user
        child.process = subprocess.Popen(
            child.service.argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
            user=user, group=user, extra_groups=_groups(user), start_new_session=True,
        )  # fmt: skip
    svc.pid_file(state_dir, child.service.name).write_text(f"{child.process.pid}\n")
    child.started, child.starts = now, child.starts + 1


def _groups(user: str | None) -> list[str] | None:
    """The user's supplementary groups (libvirt, kvm) that exist on this host."""
    if user is None:
        return None
    return [g.gr_name for g in grp.getgrall() if user in g.gr_mem] or None


def backoff(current: float, ran_for: float) -> tuple[float, float]:
    """(the wait before this restart, the next one's): doubling up to MAX_BACKOFF,
    from FIRST_BACKOFF again after a run of STABLE seconds or more."""
    wait = FIRST_BACKOFF if ran_for >= STABLE else current
    return wait, min(wait * 2, MAX_BACKOFF)


def _tend(state_dir: Path, child: Child, now: float) -> None:
    process = child.process
    if process is not None and process.poll() is None:
        return
    if process is not None:  # it died: wait, longer each time unless it had run a while
        wait, child.backoff = backoff(child.backoff, now - child.started)
        child.next_start = now + wait
        child.process = None
        with svc.log_file(state_dir, child.service.name).open("ab") as out:
            out.write(f"--- supervisor: exited with {process.returncode}\n".encode())
    if now >= child.next_start:
        _spawn(state_dir, child, now)


def _stop(state_dir: Path, children: Sequence[Child]) -> None:
    live = [c.process for c in children if c.process is not None and c.process.poll() is None]
    for process in live:
        process.terminate()
    deadline = time.monotonic() + STOP_TIMEOUT
    for process in live:
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for child in children:
        svc.pid_file(state_dir, child.service.name).unlink(missing_ok=True)


def supervise(state_dir: Path, services: Sequence[svc.Service], stop: threading.Event) -> None:
    for sub in ("run", "log"):
        (state_dir / sub).mkdir(parents=True, exist_ok=True)
    children = [Child(s) for s in services]
    try:
        while not stop.is_set():
            for child in children:
                _tend(state_dir, child, time.monotonic())
            stop.wait(POLL)
    finally:
        _stop(state_dir, children)


def _launch(state_dir: Path, services_file: Path) -> int:
    """Start the supervisor in its own session, record its PID, and return it."""
    log = svc.log_file(state_dir, svc.SUPERVISOR)
    log.parent.mkdir(parents=True, exist_ok=True)
    svc.pid_file(state_dir, svc.SUPERVISOR).parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "saphira.join.supervisor", "--state-dir", str(state_dir),
             "--services", str(services_file)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True,
        )  # fmt: skip
    svc.pid_file(state_dir, svc.SUPERVISOR).write_text(f"{process.pid}\n")
    return process.pid


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m saphira.join.supervisor")
    parser.add_argument("--state-dir", type=Path, required=True)
    parser.add_argument("--services", type=Path, required=True)
    parser.add_argument("--detach", action="store_true", help="start it in the background")
    args = parser.parse_args(argv)
    if args.detach:  # the launcher exits at once, so the supervisor's parent is init
        print(_launch(args.state_dir, args.services))
        return 0
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    me = svc.pid_file(args.state_dir, svc.SUPERVISOR)
    me.parent.mkdir(parents=True, exist_ok=True)
    me.write_text(f"{os.getpid()}\n")
    try:
        supervise(args.state_dir, svc.loads(args.services.read_text()), stop)
    finally:
        me.unlink(missing_ok=True)
    return 0


def start(state_dir: Path, services_file: Path) -> int | None:
    """Launch the supervisor detached unless it runs; its PID if started now."""
    if svc.running(state_dir, svc.SUPERVISOR) is not None:
        return None
    done = subprocess.run(
        [sys.executable, "-m", "saphira.join.supervisor", "--detach", "--state-dir",
         str(state_dir), "--services", str(services_file)],
        capture_output=True, text=True, check=False, timeout=30,
    )  # fmt: skip
    if done.returncode != 0:
        raise JoinRefused(reason=f"the supervisor did not start: {done.stderr.strip()}")
    return int(done.stdout.split()[-1])


def stop_running(state_dir: Path, timeout: float = STOP_TIMEOUT + 5) -> bool:
    """SIGTERM the supervisor (it stops its children); whether it was running."""
    pid = svc.running(state_dir, svc.SUPERVISOR)
    if pid is None:
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while svc.alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return True


if __name__ == "__main__":
    sys.exit(main())
