"""Pages from Jinja2 templates (autoescaped), with the headers every page carries."""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from werkzeug.wrappers import Response

# Our own script and style only: no inline script, nothing from another origin.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


class Templates:
    def __init__(self) -> None:
        self.env = Environment(
            loader=PackageLoader("saphira.dashboard", "templates"),
            autoescape=select_autoescape(["html"]),
            trim_blocks=True,
            lstrip_blocks=True,
        )

    def text(self, name: str, **context: Any) -> str:
        return self.env.get_template(name).render(**context)

    def macro(self, template: str, macro: str, *args: Any) -> str:
        module = self.env.get_template(template).module
        return str(getattr(module, macro)(*args))

    def page(self, name: str, status: int = 200, **context: Any) -> Response:
        return Response(
            self.text(name, **context), status, headers=SECURITY_HEADERS, mimetype="text/html"
        )
