"""The one token-validation middleware every API wraps itself in.

Configured by [keystone_authtoken] like keystonemiddleware; the validator is
pluggable: ``RemoteValidator`` asks an identity service over HTTP,
``LocalValidator`` asks an in-process identity backend directly.
"""

from saphira.api.auth.middleware import (
    CONTEXT_KEY,
    AuthTokenMiddleware,
    TokenValidator,
    ValidatedToken,
    from_conf,
    request_context,
)
from saphira.api.auth.validators import LocalValidator, RemoteValidator, context_from_body

__all__ = [
    "CONTEXT_KEY",
    "AuthTokenMiddleware",
    "LocalValidator",
    "RemoteValidator",
    "TokenValidator",
    "ValidatedToken",
    "context_from_body",
    "from_conf",
    "request_context",
]
