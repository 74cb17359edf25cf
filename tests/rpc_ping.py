"""The example ``ping`` service the message-bus tests use (tests only).

Run as ``python -m tests.rpc_ping URL TOPIC SERVER OUTFILE`` it serves the
ping interface on TOPIC in its own process and appends every cast it receives to OUTFILE, so
integration tests can talk to it across processes.
"""

from __future__ import annotations

import dataclasses
import queue
import signal
import sys
import threading
from typing import Any, ClassVar

from saphira import exception
from saphira.conf import make_conf
from saphira.context import RequestContext
from saphira.objects.base import SaphiraObject
from saphira.rpc.client import RPCAPI
from saphira.rpc.server import Server, endpoint_target, start_server

TOPIC = "ping"


@dataclasses.dataclass
class Pair(SaphiraObject):
    VERSION: ClassVar[str] = "1.0"
    left: int
    right: int
    note: str = ""


class PingAPI(RPCAPI):
    """1.0: ping, record, broadcast, fail. 1.1: add."""

    TOPIC = TOPIC
    RPC_API_VERSION = "1.1"

    def ping(self, ctxt: RequestContext, *, server: str | None = None, **kw: Any) -> Any:
        return self.call(ctxt, "ping", server=server, **kw)

    def record(self, ctxt: RequestContext, item: str, *, server: str | None = None) -> None:
        self.cast(ctxt, "record", server=server, item=item)

    def broadcast(self, ctxt: RequestContext, item: str) -> None:
        self.fanout_cast(ctxt, "record", item=item)

    def fail(self, ctxt: RequestContext, what: str) -> Any:
        return self.call(ctxt, "fail", what=what)

    def add(self, ctxt: RequestContext, pair: Pair) -> Any:
        return self.call(ctxt, "add", version="1.1", pair=pair)


class PingManager:
    """The endpoint: answers who it is and queues what it was told."""

    def __init__(self, name: str, version: str = "1.1") -> None:
        self.name = name
        self.target = endpoint_target(version)
        self.received: queue.Queue[tuple[str, RequestContext]] = queue.Queue()

    def ping(self, ctxt: RequestContext) -> dict[str, Any]:
        return {"server": self.name, "request_id": ctxt.request_id, "roles": list(ctxt.roles)}

    def record(self, ctxt: RequestContext, item: str) -> None:
        self.received.put((item, ctxt))

    def fail(self, ctxt: RequestContext, what: str) -> None:
        raise exception.NotFound(f"no {what} here")

    def add(self, ctxt: RequestContext, pair: Pair) -> Pair:
        return Pair(pair.left + pair.right, 0, note=f"{self.name}:{type(pair).__name__}")


def serve(url: str, topic: str, server: str, outfile: str) -> None:
    conf = make_conf()
    conf([])
    conf.set_override("transport_url", url)
    # Each server is a host of its own, as in a deployment: two processes of one
    # name on one host would share the queue manager's names and its counter.
    conf.set_override("host", server)
    manager = PingManager(server)
    running: Server = start_server(conf, topic, server, [manager])
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print("ready", flush=True)
    while not stop.is_set():
        try:
            item, _ = manager.received.get(timeout=0.2)
        except queue.Empty:
            continue
        with open(outfile, "a", encoding="utf-8") as handle:
            handle.write(item + "\n")
    running.stop()
    running.wait()


if __name__ == "__main__":
    serve(*sys.argv[1:5])
