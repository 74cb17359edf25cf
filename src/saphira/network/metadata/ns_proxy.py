"""The proxy inside one ``qdhcp-`` namespace: 169.254.169.254:80 -> the metadata agent.

Started by the privileged helper (``privsep.metadata.spawn_proxy``) as root
inside the namespace, it binds its listeners, then drops to the service's
user for good (``setgroups``, ``setresgid``, ``setresuid``; regaining root
is checked to fail) and detaches, its pid in ``--pid-file``. Each request is
relayed over the agent's unix socket with the guest's headers filtered
(``headers.from_guest``) and two set here: the network id this process was
started for, and the peer address of the connection. Neither comes from
anything the guest sent.

Python's standard library rather than haproxy (Neutron's choice): one
request per connection, a body of at most 64 KiB, and nothing else to
configure, while haproxy would be another package and another config
format for the helper to vet; a thread per request is plenty for a few
guests booting on one network.
"""

from __future__ import annotations

import argparse
import http.client
import logging
import os
import socket
import sys
import threading
from http.server import ThreadingHTTPServer
from typing import Any

from saphira.network.metadata import headers
from saphira.network.metadata.relaying import RelayingHandler

LOG = logging.getLogger("saphira.metadata-proxy")
TIMEOUT = 30.0
MAX_CONNECTIONS = 256
BACKLOG = 1024
IP_FREEBIND = getattr(socket, "IP_FREEBIND", 15)


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float = TIMEOUT) -> None:
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self) -> None:
        """A blocking connect: with a timeout it would fail (EAGAIN) on a full backlog
        instead of waiting for the agent to accept."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(self.path)
        sock.settimeout(self.timeout)
        self.sock = sock


class Listener(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = BACKLOG  # with socketserver's 5, a boot storm's SYNs wait 1 s, 3 s...
    network_id = ""
    socket_path = ""

    def __init__(self, address: str, port: int, max_connections: int = MAX_CONNECTIONS) -> None:
        self.slots = threading.BoundedSemaphore(max_connections)
        host, _, scope = address.partition("%")
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.bind_target: tuple[str, int] | tuple[str, int, int, int] = (
            (host, port, 0, socket.if_nametoindex(scope)) if scope else (host, port)
        )
        super().__init__(self.bind_target[:2], Relay, bind_and_activate=False)

    def server_bind(self) -> None:
        """Bound even before the address is usable (IPv6 duplicate detection, a slow add)."""
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.setsockopt(socket.SOL_IP, IP_FREEBIND, 1)
        self.socket.bind(self.bind_target)
        self.server_address = self.socket.getsockname()

    def process_request(self, request: Any, client_address: Any) -> None:
        """Beyond ``max_connections`` open at once a connection is closed at once: a guest
        holding many idle ones costs a thread each, for up to ``TIMEOUT``."""
        if not self.slots.acquire(blocking=False):
            LOG.warning("%s: too many connections, one closed", client_address[0])
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class Relay(RelayingHandler):
    server: Listener
    timeout = TIMEOUT  # a guest that stops sending mid-request lets go of its thread

    def _relay(self) -> None:
        length = self.body_length()
        if length is None:
            self.send_error(400, "Bad request body")
            return
        body = self.rfile.read(length)
        sent = headers.from_guest(self.headers.items())
        sent += [
            (headers.NETWORK_ID, self.server.network_id),
            (headers.FORWARDED_FOR, self.client_address[0].partition("%")[0]),
        ]
        if body:
            sent.append(("Content-Length", str(len(body))))
        try:
            status, reply_headers, data = self._ask(body, sent)
        except (OSError, http.client.HTTPException) as error:
            LOG.warning("metadata agent unreachable at %s: %s", self.server.socket_path, error)
            self.send_error(502, "Metadata agent unreachable")
            return
        self.send_response(status)
        for name, value in reply_headers:
            if name.lower() not in headers.HOP_BY_HOP and name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _ask(
        self, body: bytes, sent: list[tuple[str, str]]
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        connection = UnixConnection(self.server.socket_path)
        try:
            connection.putrequest(self.command, self.path, skip_host=True,
                                  skip_accept_encoding=True)  # fmt: skip
            for name, value in sent:
                connection.putheader(name, value)
            connection.endheaders(body or None)
            reply = connection.getresponse()
            return reply.status, reply.getheaders(), reply.read()
        finally:
            connection.close()

    def log_message(self, format: str, *args: object) -> None:
        """Not one line per request: the log has no rotation and guests ask at will."""
        LOG.debug("%s " + format, self.client_address[0], *args)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="saphira-metadata-proxy")
    parser.add_argument("--network-id", required=True)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--pid-file", required=True)
    parser.add_argument("--log-file", required=True)
    parser.add_argument("--user", type=int, required=True)
    parser.add_argument("--group", type=int, required=True)
    parser.add_argument("--port", type=int, default=80)
    parser.add_argument("--listen", action="append", required=True)
    return parser.parse_args(argv)


def drop_privileges(uid: int, gid: int) -> None:
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    try:
        os.setuid(0)
    except PermissionError:
        return
    raise SystemExit("metadata proxy: still able to regain root, refusing to run")


def detach(pid_file: str, log_fd: int) -> None:
    """Fork: the parent records the child's pid and exits 0, the child serves.

    The agent made both files beforehand, owned by the user this runs as
    (the helper has no CAP_CHOWN); rewriting them keeps their owner.
    """
    pid = os.fork()
    if pid:
        with open(pid_file, "w", encoding="ascii") as handle:
            handle.write(f"{pid}\n")
        os._exit(0)
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.close(devnull)


def main(argv: list[str]) -> int:
    args = parse(argv)
    listeners = [Listener(address, args.port) for address in args.listen]
    for listener in listeners:
        listener.network_id, listener.socket_path = args.network_id, args.socket
        listener.server_bind()
        listener.server_activate()
    log_fd = os.open(args.log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    # Before the fork: once the pid file names the server, it is no longer root.
    drop_privileges(args.user, args.group)
    detach(args.pid_file, log_fd)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    LOG.info("metadata proxy for network %s on %s", args.network_id, ", ".join(args.listen))
    threads = [
        threading.Thread(target=listener.serve_forever, daemon=True) for listener in listeners
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
