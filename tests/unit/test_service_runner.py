"""The runner: serves every app, names the service whose port is busy, stops cleanly."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest
import requests
from oslo_config import cfg

from saphira import conf as saphira_conf
from saphira.api.wsgi.front import FrontServer
from saphira.clients.fake import FakeTransport
from saphira.clients.transport import Request, Routed
from saphira.exception import ServiceError
from saphira.service.registry import ServiceSpec, listen_port
from saphira.service.runner import Runner, own_origins
from tests.sockets import free_port


def _app(body: bytes) -> Callable[[dict[str, Any], Any], Iterable[bytes]]:
    def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [body]

    return app


def _spec(name: str, port: int) -> ServiceSpec:
    return ServiceSpec(name, f"{name}-type", port, "", name, factory=lambda _c: _app(name.encode()))


@pytest.fixture
def conf() -> cfg.ConfigOpts:
    return saphira_conf.load([], overrides={"DEFAULT": {"bind_host": "127.0.0.1"}})


@pytest.fixture
def runner(conf: cfg.ConfigOpts) -> Iterator[Runner]:
    specs = [_spec("one", free_port()), _spec("two", free_port())]
    runner = Runner(conf, specs)
    yield runner
    runner.stop()


def test_every_service_answers_on_its_port(runner: Runner, conf: cfg.ConfigOpts) -> None:
    runner.start()
    for spec in runner.specs:
        url = f"http://127.0.0.1:{listen_port(conf, spec)}/"
        assert requests.get(url, timeout=5).text == spec.name


def test_stop_closes_every_port(runner: Runner, conf: cfg.ConfigOpts) -> None:
    runner.start()
    runner.request_stop()
    runner.wait(poll=0.05)  # returns without error: a requested stop is not a failure
    runner.stop()
    for spec in runner.specs:
        with pytest.raises(requests.ConnectionError):
            requests.get(f"http://127.0.0.1:{listen_port(conf, spec)}/", timeout=5)


def test_busy_port_names_the_service_and_starts_nothing(conf: cfg.ConfigOpts) -> None:
    free = free_port()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = int(busy.getsockname()[1])
        runner = Runner(conf, [_spec("first", free), _spec("second", taken)])
        with pytest.raises(ServiceError) as caught:
            runner.start()
    message = caught.value.message
    assert "second-type (second)" in message
    assert f"127.0.0.1:{taken}" in message
    assert "address already in use" in message
    assert "\n" not in message
    with pytest.raises(requests.ConnectionError):  # the first one was stopped again
        requests.get(f"http://127.0.0.1:{free}/", timeout=5)


def test_a_service_that_dies_stops_the_cloud_with_its_name(runner: Runner) -> None:
    runner.start()
    server = runner._served[0].server
    assert isinstance(server, FrontServer)
    server.interrupt = RuntimeError("boom")  # what cheroot does when a worker dies
    with pytest.raises(ServiceError, match=r"one-type \(one\) failed"):
        runner.wait(poll=0.05)


def test_an_in_process_runner_answers_its_own_calls_without_a_socket(
    conf: cfg.ConfigOpts,
) -> None:
    spec = _spec("one", free_port())
    url = f"http://127.0.0.1:{listen_port(conf, spec)}/x"
    wire = FakeTransport()  # fails the test if the request reaches it
    runner = Runner(conf, [spec], in_process=True)
    runner.start()
    try:
        assert Routed(wire).send(Request("GET", url)).content == b"one"
        assert requests.get(url, timeout=5).text == "one"  # and still over HTTP
    finally:
        runner.stop()
    wire.reply("GET", "/x", content=b"the wire")
    assert Routed(wire).send(Request("GET", url)).content == b"the wire"  # withdrawn
    assert len(wire.sent) == 1


def test_a_runner_serves_over_http_alone_unless_told(runner: Runner, conf: cfg.ConfigOpts) -> None:
    runner.start()
    url = f"http://127.0.0.1:{listen_port(conf, runner.specs[0])}/"
    wire = FakeTransport()
    wire.reply("GET", "/", content=b"the wire")
    assert Routed(wire).send(Request("GET", url)).content == b"the wire"


def test_own_origins_follow_the_bind_address() -> None:
    wildcard = saphira_conf.load(
        [], overrides={"DEFAULT": {"bind_host": "0.0.0.0", "my_ip": "192.0.2.5"}}
    )
    assert own_origins(wildcard, 8778) == [
        "http://127.0.0.1:8778", "http://192.0.2.5:8778", "http://localhost:8778",
    ]  # fmt: skip
    one = saphira_conf.load([], overrides={"DEFAULT": {"bind_host": "127.0.0.1",
                                                       "my_ip": "192.0.2.5"}})  # fmt: skip
    assert own_origins(one, 8778) == ["http://127.0.0.1:8778"]


def test_port_offset_is_added(conf: cfg.ConfigOpts) -> None:
    conf.set_override("port_offset", 7)
    assert listen_port(conf, _spec("x", 5000)) == 5007


def test_mmap_threshold_is_fixed_on_glibc() -> None:
    import ctypes.util

    from saphira.service import memory

    on_glibc = "libc.so" in (ctypes.util.find_library("c") or "")
    assert memory.fix_mmap_threshold() is on_glibc


def test_malloc_arenas_are_capped_on_glibc() -> None:
    import ctypes.util

    from saphira.service import memory

    on_glibc = "libc.so" in (ctypes.util.find_library("c") or "")
    assert memory.limit_arenas() is on_glibc
