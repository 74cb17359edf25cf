"""How large a request body may be, checked before any form of it is read.

Werkzeug reads a form when it is first asked for (the CSRF check asks first),
spooling a file part to disk past 500 kB; without a limit any POST could fill
the disk. An image upload may be ``[dashboard] upload_size_cap`` (plus room for
its other fields); every other form is small. A body over its limit is refused
with one plain 413 page, before the CSRF check and before any view. A POST that
will be refused for want of a session is not read at all: only a logged-in user
can make the dashboard spool an upload.
"""

from __future__ import annotations

from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wrappers import Request

from saphira.dashboard.cloud_images import size_text
from saphira.dashboard.errors import Problem

FORM_LIMIT = 1024 * 1024  # a launch form's user data is at most 64 KiB
FIELDS_ROOM = 64 * 1024  # an upload's name, format and token beside its file
UPLOADS = frozenset({"image_upload"})


def limit(endpoint: str, upload_cap: int) -> int:
    return upload_cap + FIELDS_ROOM if endpoint in UPLOADS else FORM_LIMIT


def too_big(request: Request, endpoint: str, upload_cap: int, read: bool) -> Problem | None:
    """None if the body fits, else the 413 to answer. A body announced too large is
    refused unread; with ``read`` (a session's request, or a public form's) the form
    is read now, under the limit, so a body that grows past it is one page too."""
    most = limit(endpoint, upload_cap)
    request.max_content_length = most
    if request.method != "POST":
        return None
    if (request.content_length or 0) > most:
        return _refusal(endpoint, upload_cap)
    if read:
        try:
            request.form  # noqa: B018 - read here so that a refusal is one page
        except RequestEntityTooLarge:
            return _refusal(endpoint, upload_cap)
    return None


def _refusal(endpoint: str, upload_cap: int) -> Problem:
    cap = size_text(upload_cap) if endpoint in UPLOADS else size_text(FORM_LIMIT)
    return Problem(413, f"That is more than the dashboard accepts (at most {cap}).")
