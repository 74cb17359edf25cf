"""Console tokens: made for the API's console URLs, checked for the console proxies.

A token is 128 random bits (URL-safe base64); only its SHA-256 is written,
in the cell of its server (consoles are per cell, as Nova's since cells v2),
and it dies after ``[consoleauth] token_ttl`` seconds or with its server.
The proxies look a token up by its hash in each cell, through ``validate``;
they never touch the tables themselves.
"""

from __future__ import annotations

import secrets
import time
from urllib.parse import urlencode

from oslo_config import cfg

from saphira.computesvc import lookup
from saphira.computesvc.caller import Caller
from saphira.conf.endpoints import by_type, console_base_url
from saphira.db.cell import console_tokens, instances
from saphira.db.cell.console_tokens import ConsoleToken
from saphira.db.directory import CellDirectory
from saphira.exception import ConsoleTokenInvalid, ConsoleTypeUnavailable
from saphira.objects import ConsoleEndpoint, ConsoleType, Instance

TOKEN_BYTES = 16  # 128 bits


def now() -> int:
    return int(time.time())


def base_url(conf: cfg.ConfigOpts, console_type: ConsoleType) -> str:
    """``[vnc] novncproxy_base_url`` (``[spice] html5proxy_base_url``, ``[serial_console]
    base_url``), or the all-in-one's own proxy at my_ip (ws:// for serial, as Nova's)."""
    group = {ConsoleType.SPICE_HTML5: conf.spice, ConsoleType.SERIAL: conf.serial_console}
    if console_type in group and not group[console_type].enabled:
        raise ConsoleTypeUnavailable(console_type=console_type.value)  # Nova's 400
    if console_type is ConsoleType.SPICE_HTML5:
        configured = conf.spice.html5proxy_base_url
    elif console_type is ConsoleType.SERIAL:
        configured = conf.serial_console.base_url
    else:
        configured = conf.vnc.novncproxy_base_url
    if configured:
        return str(configured)
    own = console_base_url(conf, by_type(console_type.value))
    return "ws" + own.removeprefix("http") if console_type is ConsoleType.SERIAL else own


def access_url(base: str, token: str, console_type: ConsoleType) -> str:
    """Nova's URL: noVNC 1.x reads the token from ``path`` (``?path=%3Ftoken%3D...``)."""
    if console_type is ConsoleType.NOVNC:
        return f"{base}?{urlencode({'path': f'?token={token}'})}"
    return f"{base}?{urlencode({'token': token})}"


def authorize(
    caller: Caller,
    found: lookup.Located,
    console_type: ConsoleType,
    endpoint: ConsoleEndpoint,
    base_url: str,
    ttl: int,
) -> str:
    """A new token for ``found``'s console at ``endpoint``; the caller builds the URL."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    record = ConsoleToken(
        console_type.value, endpoint.host, endpoint.port, endpoint.internal_access_path,
        found.instance.uuid, base_url, now() + ttl,
    )  # fmt: skip
    with lookup.cell_session(caller, found) as session:
        console_tokens.insert(session, token, record)
    return token


def validate(directory: CellDirectory, token: str, at: int | None = None) -> ConsoleToken:
    """The live token's record from whichever cell holds it; ConsoleTokenInvalid if none."""
    when = now() if at is None else at
    for cell in directory.cells():
        with directory.cell(cell.url) as session:
            found = console_tokens.find(session, token, when)
        if found is not None:
            return found
    raise ConsoleTokenInvalid(token="***")


def instance_of(directory: CellDirectory, instance_uuid: str) -> Instance:
    """The token's server as its cell holds it (InstanceNotFound once it is gone)."""
    with directory.instance_cell(instance_uuid) as session:
        return instances.get(session, instance_uuid)


def purge_expired(directory: CellDirectory, at: int | None = None) -> int:
    """Drop every cell's expired tokens; how many."""
    when = now() if at is None else at
    purged = 0
    for cell in directory.cells():
        with directory.cell(cell.url) as session:
            purged += console_tokens.purge_expired(session, when)
    return purged
