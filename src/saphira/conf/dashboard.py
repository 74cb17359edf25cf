"""[dashboard]: the web dashboard (``saphira.dashboard``), in ``saphira up`` or alone."""

from __future__ import annotations

from oslo_config import cfg

group = cfg.OptGroup("dashboard", help="The web dashboard (Horizon's workflows in a browser).")

opts: list[cfg.Opt] = [
    cfg.PortOpt(
        "port",
        default=8080,
        help="Port the dashboard listens on (plus [DEFAULT] port_offset).",
    ),
    cfg.URIOpt(
        "identity_url",
        help="The identity endpoint users log in at (Horizon's OPENSTACK_KEYSTONE_URL), "
        "e.g. http://controller:5000/v3. Unset: this host's own identity service.",
    ),
    cfg.IntOpt(
        "session_timeout",
        default=3600,
        min=60,
        help="Seconds a session may stay unused before it ends (Horizon's SESSION_TIMEOUT). "
        "A session also ends when its token expires.",
    ),
    cfg.IntOpt(
        "max_sessions",
        default=10000,
        min=1,
        help="Sessions kept in this process's memory; past it the least recently used one ends.",
    ),
    cfg.FloatOpt(
        "feed_interval",
        default=1.0,
        min=1.0,
        help="Seconds between two reads of a project's server changes "
        "(GET /servers/detail?changes-since=) while one of its pages listens.",
    ),
    cfg.IntOpt(
        "page_workers",
        default=8,
        min=1,
        help="Threads that make one page's calls to the APIs in parallel (shared by all "
        "pages of the process).",
    ),
    cfg.IntOpt(
        "threads",
        default=64,
        min=4,
        help="Worker threads of the dashboard's HTTP server. Each open Instances page "
        "holds one for its event stream, so this bounds the live pages of the process.",
    ),
    cfg.IntOpt(
        "api_timeout",
        default=30,
        min=1,
        help="Seconds the dashboard waits for an API's answer.",
    ),
    cfg.IntOpt(
        "upload_size_cap",
        default=8 * 1024**3,
        min=1,
        help="Largest image file, in bytes, the Images page accepts (8 GiB). A larger "
        "request body is refused before it is read; an accepted file is kept in a "
        "temporary file (TMPDIR) until it has gone to the image service.",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [(group, opts)]
