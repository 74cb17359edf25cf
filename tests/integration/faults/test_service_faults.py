"""Faults with nothing lost: each service of the process deployment (its own OS
process over RabbitMQ and PostgreSQL, the fake driver) is SIGKILLed in the
middle of a stream of builds and deletes, then started again. Every server then
ends ACTIVE, or ERROR with a fault, with no task in flight; placement holds a
claim for every ACTIVE server and for nothing that is not a server; once every
server is deleted nothing is held; every service is up again, and none of the
others died while the killed one was away.

Two tests, both in the long tier: every service in turn on one deployment (the
compute agent and the conductor always, the others as the tier's budget allows),
and RabbitMQ then PostgreSQL (servers of the test's own) on another.
"""

from __future__ import annotations

import datetime
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.budget import Budget
from tests.integration.broker import PrivateBroker
from tests.integration.deploy.deployment import Deployment
from tests.integration.faults.cloudview import CloudView, Seen
from tests.integration.private_pg import PrivatePostgres
from tests.polling import wait_for

pytestmark = pytest.mark.integration
Make = Callable[..., Deployment]
NEW, OLD = 4, 2  # servers the stream builds, servers it deletes
SETTLE = 120.0


@dataclass(frozen=True)
class Service:
    label: str
    module: str
    host: str | None = None
    # When to kill it: once a build is in this task_state (None: as the stream starts).
    during: str | None = None
    # Run only in the test that kills it (no build or delete needs it).
    extra: bool = False


SERVICES = {
    "compute": Service("compute-a", "compute", "compute-a", during="spawning"),
    "conductor": Service("conductor", "conductor"),
    "scheduler": Service("scheduler", "scheduler"),
    "api": Service("api", "api"),
    "metadata": Service("metadata", "api_metadata", extra=True),
    "novncproxy": Service("novncproxy", "novncproxy", extra=True),
}
EXTRAS = tuple(name for name, service in SERVICES.items() if service.extra)
ALWAYS = ("compute", "conductor")  # the kills that need the recovery, in every run
CONF: dict[str, dict[str, object]] = {
    "fake_driver": {"delay": 3},  # a build spends 3 s spawning: long enough to be hit
    # Calls wait out a restart; a build no conductor placed is failed after 20 s.
    "DEFAULT": {"rpc_response_timeout": 15, "lost_build_timeout": 20},
}


def _start(deploy: Deployment, service: Service) -> None:
    own: dict[str, dict[str, object]] = {}
    if service.label == "api":  # the metadata API, when run, is saphira-api-metadata's
        own = {"DEFAULT": {"enabled_apis": "osapi_compute"}}
    deploy.start(service.label, service.module, host=service.host, own=own)


def _deployment(
    deployment: Make, tmp_path: Path, extras: tuple[str, ...] = ()
) -> tuple[Deployment, CloudView, str]:
    """The deployment, its services started (``extras`` too), a flavor and an image."""
    deploy = deployment(CONF)
    wanted = [s for name, s in SERVICES.items() if not s.extra or name in extras]
    with ThreadPoolExecutor(len(wanted)) as pool:  # each waits for its own readiness
        list(pool.map(lambda service: _start(deploy, service), wanted))
    assert deploy.discover_hosts() == ["compute-a"]
    view = CloudView(deploy)
    view.conn.compute.create_flavor(name="tiny", vcpus=1, ram=64, disk=1)
    image = view.conn.image.create_image(
        name="tiny-image", disk_format="raw", container_format="bare", data=b"\0" * 4096
    )
    return deploy, view, str(image.id)


def _create(view: CloudView, name: str, image: str) -> Any:
    return view.conn.compute.create_server(
        name=name, flavor_id=_flavor(view), image_id=image, networks="none"
    )


def _flavor(view: CloudView) -> str:
    return str(view.conn.compute.find_flavor("tiny", ignore_missing=False).id)


@dataclass
class Stream:
    """Builds NEW servers and deletes the OLD ones in a thread of its own; a
    request the dead service refused is only counted (the client sees it)."""

    view: CloudView
    image: str
    old: list[str]
    started: threading.Event
    refused: int = 0

    def run(self) -> None:
        for index in range(NEW):
            self._try(_create, self.view, f"new-{index}", self.image)
            self.started.set()
            if index < len(self.old):
                self._try(lambda old: self.view.conn.compute.delete_server(old), self.old[index])
        self.started.set()

    def _try(self, call: Callable[..., object], *args: object) -> None:
        try:
            call(*args)
        except Exception:
            self.refused += 1
            self.view.forget()


@contextmanager
def _streaming(view: CloudView, image: str, old: list[str]) -> Iterator[Stream]:
    stream = Stream(CloudView(view.deploy), image, old, threading.Event())
    thread = threading.Thread(target=stream.run, daemon=True)
    thread.start()
    try:
        yield stream
    finally:
        thread.join(timeout=SETTLE)
        assert not thread.is_alive(), "the stream of requests never ended"


def _wait(deploy: Deployment, what: str, check: Callable[[], Any], timeout: float = SETTLE) -> Any:
    try:
        return wait_for(what, check, timeout, interval=1.0)
    except AssertionError as error:
        raise AssertionError(f"{error}\n{deploy.logs()}") from None


def _service_fault(deploy: Deployment, view: CloudView, service: Service) -> Callable[[], None]:
    return lambda: _kill_and_restart(deploy, view, service)


def _kill_and_restart(deploy: Deployment, view: CloudView, service: Service) -> None:
    if service.during is not None:
        _wait(deploy, f"a build {service.during}", lambda: any(
            s.task_state == service.during for s in view.servers()
        ), timeout=60)  # fmt: skip
    process = deploy.processes[service.label]
    assert process.proc is not None
    process.proc.kill()
    process.proc.wait()
    process.kill()
    _start(deploy, service)


def _settled(view: CloudView, deploy: Deployment) -> list[Seen]:
    def every_server_settled() -> list[Seen] | None:
        try:
            found = view.servers()
        except Exception:  # the API itself may still be coming back
            view.forget()
            return None
        return found if all(s.settled for s in found) else None

    try:
        return list(
            _wait(deploy, "every server ACTIVE or ERROR with a fault", every_server_settled)
        )
    except AssertionError as error:
        raise AssertionError(f"{error}\nservers: {view.servers()}") from None


def _round(deploy: Deployment, view: CloudView, image: str, fault: Callable[[], None]) -> None:
    """Servers to delete, ACTIVE; then the stream, with ``fault`` (a kill and a start)
    in its middle; then every check but the final clean-up's."""
    old = [_create(view, f"old-{i}", image).id for i in range(OLD)]
    _wait(deploy, "the old servers ACTIVE", lambda: {
        s.status for s in view.servers() if s.id in old
    } == {"ACTIVE"}, timeout=60)  # fmt: skip

    with _streaming(view, image, old) as stream:
        assert stream.started.wait(60)
        fault()

    servers = _settled(view, deploy)
    held, ids = view.consumers(), {s.id for s in servers}
    active = {s.id for s in servers if s.status == "ACTIVE"}
    assert active <= held, f"ACTIVE servers without a claim: {active - held}"
    assert held <= ids, f"claims of no server: {held - ids}"
    _wait(deploy, "every service up", lambda: view.services_down() == [], timeout=60)
    alive = {
        label: p.proc is not None and p.proc.poll() is None for label, p in deploy.processes.items()
    }
    assert alive == dict.fromkeys(alive, True), deploy.logs()


def _nothing_left(deploy: Deployment, view: CloudView) -> None:
    """Every server deleted: no claim left; every service stops cleanly."""
    for server in view.servers():
        view.conn.compute.delete_server(server.id)
    _wait(deploy, "every server deleted", lambda: view.servers() == [])
    assert view.consumers() == set()
    _stop_all(deploy)


def turn(names: list[str], day: datetime.date) -> list[str]:
    """``names`` in order, starting at the one whose turn ``day`` is."""
    start = day.toordinal() % len(names)
    return names[start:] + names[:start]


def sweep(day: datetime.date) -> list[str]:
    """The services in the order they are killed: ALWAYS, then the rest in ``day``'s turn."""
    return [*ALWAYS, *turn(sorted(set(SERVICES) - set(ALWAYS)), day)]


@pytest.mark.long
@pytest.mark.parametrize("databases", ["postgresql"], indirect=True)
def test_services_killed_one_after_another_lose_nothing(
    deployment: Make, tmp_path: Path, long_budget: Budget
) -> None:
    """Every service in turn on one deployment that runs them all, a round (stream,
    kill, start, checks) each: the compute agent and the conductor always (the kills
    that need the recovery: an agent's interrupted builds and deletes, a conductor's
    lost builds), then one more at least and as many as this test's share of the
    long tier allows, the UTC day choosing which comes first, so that runs with a
    share too small for all of them still cover each over a week."""
    deploy, view, image = _deployment(deployment, tmp_path, extras=EXTRAS)
    killed: list[str] = []
    for name in sweep(datetime.datetime.now(datetime.UTC).date()):
        began = time.monotonic()
        _round(deploy, view, image, _service_fault(deploy, view, SERVICES[name]))
        killed.append(name)
        if len(killed) > len(ALWAYS) and long_budget.remaining() < time.monotonic() - began:
            break
    print(f"killed one after another: {', '.join(killed)} of {len(SERVICES)} services")
    _nothing_left(deploy, view)


@pytest.mark.long
def test_the_broker_then_the_database_killed_mid_stream_lose_nothing(
    private_deployment: tuple[Make, PrivateBroker, PrivatePostgres], tmp_path: Path
) -> None:
    """RabbitMQ, then PostgreSQL, each a server of the test's own (the suite's are
    shared), SIGKILLed and started again on its data (the database by crash
    recovery), a round each on one deployment: the services' connections and
    pools come back on their own."""
    make, broker, server = private_deployment
    deploy, view, image = _deployment(make, tmp_path)
    _round(deploy, view, image, lambda: _kill_broker(broker))
    _round(deploy, view, image, lambda: _kill_database(server))
    _nothing_left(deploy, view)


def _kill_database(server: PrivatePostgres) -> None:
    server.kill()
    server.restart()


def _kill_broker(broker: PrivateBroker) -> None:
    assert broker.process is not None
    os.killpg(broker.process.pid, signal.SIGKILL)  # its own session: the node and its shell
    broker.process.wait()
    broker.process = None
    (broker.base / "rabbit.pid").unlink(missing_ok=True)  # the dead node's
    broker.start()


def _stop_all(deploy: Deployment) -> None:
    """SIGTERM every service at once (the fixture would one by one): each exits 0."""
    with ThreadPoolExecutor(len(deploy.processes)) as pool:
        codes = dict(
            zip(
                deploy.processes,
                pool.map(lambda p: p.stop(), deploy.processes.values()),
                strict=True,
            )
        )
    assert codes == dict.fromkeys(codes, 0), deploy.logs()
