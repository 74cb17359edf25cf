"""werkzeug's test client for the tests' in-process APIs, typed for JSON bodies.

werkzeug types a response's ``json`` as ``Any | None`` (it may be absent);
every API here answers JSON, so a response's ``json`` is typed as
``json.loads`` and requests' ``Response.json()`` type it, and a test that
indexes it needs no check first. Nothing else differs from werkzeug's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from werkzeug import test

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication


class JsonResponse(test.TestResponse):
    @property
    def json(self) -> Any:
        """The parsed JSON body; None when the response has none."""
        return self.get_json()


class Client(test.Client):
    """werkzeug's test Client, answering JsonResponse."""

    def __init__(self, application: WSGIApplication, use_cookies: bool = True) -> None:
        super().__init__(application, JsonResponse, use_cookies)

    def open(
        self, *args: Any, buffered: bool = False, follow_redirects: bool = False, **kwargs: Any
    ) -> JsonResponse:
        response = super().open(
            *args, buffered=buffered, follow_redirects=follow_redirects, **kwargs
        )
        assert isinstance(response, JsonResponse)
        return response

    def get(self, *args: Any, **kw: Any) -> JsonResponse:
        return self.open(*args, method="GET", **kw)

    def post(self, *args: Any, **kw: Any) -> JsonResponse:
        return self.open(*args, method="POST", **kw)

    def put(self, *args: Any, **kw: Any) -> JsonResponse:
        return self.open(*args, method="PUT", **kw)

    def delete(self, *args: Any, **kw: Any) -> JsonResponse:
        return self.open(*args, method="DELETE", **kw)

    def patch(self, *args: Any, **kw: Any) -> JsonResponse:
        return self.open(*args, method="PATCH", **kw)

    def head(self, *args: Any, **kw: Any) -> JsonResponse:
        return self.open(*args, method="HEAD", **kw)

    def options(self, *args: Any, **kw: Any) -> JsonResponse:
        return self.open(*args, method="OPTIONS", **kw)
