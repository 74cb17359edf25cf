"""The dashboard's URL table: what each route is, and whether it needs a session.

``routes()`` is the table the app is built from, as each API package's is;
tests hold every route to an entry of their access table.
"""

from __future__ import annotations

from werkzeug.routing import Map, Rule

_GET, _POST = ["GET"], ["POST"]
_I = "/project/instances"
# Reachable without a session: the login form, logging in, the static files.
PUBLIC = frozenset({"login_form", "login", "static"})


def routes() -> list[Rule]:
    return [
        Rule("/", endpoint="home", methods=_GET),
        Rule("/auth/login", endpoint="login_form", methods=_GET),
        Rule("/auth/login", endpoint="login", methods=_POST),
        Rule("/auth/logout", endpoint="logout", methods=_POST),
        Rule("/auth/switch", endpoint="switch", methods=_POST),
        Rule(_I, endpoint="instances", methods=_GET),
        Rule(f"{_I}/events", endpoint="events", methods=_GET),
        Rule(f"{_I}/launch", endpoint="launch_form", methods=_GET),
        Rule(f"{_I}/launch", endpoint="launch", methods=_POST),
        Rule(f"{_I}/<server_id>", endpoint="detail", methods=_GET),
        Rule(f"{_I}/<server_id>/confirm/<name>", endpoint="confirm", methods=_GET),
        Rule(f"{_I}/<server_id>/action", endpoint="act", methods=_POST),
        Rule("/static/<path:name>", endpoint="static", methods=_GET),
    ]


def url_map() -> Map:
    return Map(routes(), strict_slashes=False)
