"""[consoleauth] and [console]: console tokens and the console proxies' checks.

The proxies' own listeners ([vnc] novncproxy_host/port) sit with the rest of
[vnc] in ``saphira.conf.services``.
"""

from __future__ import annotations

from oslo_config import cfg

_CONSOLEAUTH: list[cfg.Opt] = [
    cfg.IntOpt(
        "token_ttl",
        default=600,
        min=1,
        help="Seconds a console token (the token= of a console URL) stays valid.",
    ),
    cfg.BoolOpt(
        "enforce_session_timeout",
        default=False,
        help="Close a console session when its token expires, not only refuse new ones.",
    ),
    cfg.IntOpt(
        "max_connections_per_token",
        default=4,
        min=1,
        help="Console connections one token may have open at once; more are refused.",
    ),
]

_CONSOLE: list[cfg.Opt] = [
    cfg.ListOpt(
        "allowed_origins",
        default=[],
        help="Origins (host names, optionally host:port) a browser may open a console "
        "from besides the proxy's own host.",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [
        (cfg.OptGroup("consoleauth", help="Console authorization tokens."), _CONSOLEAUTH),
        (cfg.OptGroup("console", help="The console proxies."), _CONSOLE),
    ]
