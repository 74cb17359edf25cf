"""[wsgi]: how every API's HTTP server treats slow, idle and numerous connections.

``client_socket_timeout`` is Nova's (and oslo.service's) name; the other keys
are Saphira's, for the head-first front (``saphira.api.wsgi.heads``).
"""

from __future__ import annotations

from oslo_config import cfg

group = cfg.OptGroup("wsgi", help="The HTTP servers of the APIs.")

opts: list[cfg.Opt] = [
    cfg.IntOpt(
        "client_socket_timeout",
        default=60,
        min=1,
        help="Seconds a connection may stay open without starting a request "
        "(a new one, or a kept-alive one between requests) before it is "
        "closed. Waiting connections hold no worker thread.",
    ),
    cfg.IntOpt(
        "header_timeout",
        default=10,
        min=1,
        help="Seconds from a request's first byte until its whole head "
        "(request line and headers) must have arrived, else the connection "
        "is closed; a worker thread only takes a request whose head is "
        "complete. Also the longest a worker waits for each read of a body.",
    ),
    cfg.IntOpt(
        "max_header_size",
        default=65536,
        min=1024,
        help="Largest request head (request line and headers), in bytes; a "
        "longer one closes the connection.",
    ),
    cfg.IntOpt(
        "max_connections_per_client",
        default=256,
        min=1,
        help="Connections one client address may hold open on one API at a "
        "time; more are closed as soon as they are accepted. The address is "
        "the connection's peer: behind a proxy, every client shares it.",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [(group, opts)]
