"""The request context: who is asking, in which scope, under which request id.

It is a plain value object so it can cross thread and (later) process
boundaries; the API edge builds it from a validated token.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from typing import Any


def new_request_id() -> str:
    return f"req-{uuid.uuid4()}"


@dataclass(frozen=True)
class RequestContext:
    request_id: str = field(default_factory=new_request_id)
    user_id: str | None = None
    user_name: str | None = None
    user_domain_id: str | None = None
    project_id: str | None = None
    project_name: str | None = None
    project_domain_id: str | None = None
    domain_id: str | None = None
    system_scope: str | None = None
    roles: tuple[str, ...] = ()
    auth_token: str | None = None
    global_request_id: str | None = None
    # The context_is_admin policy rule's verdict, taken where the token was validated
    # (Nova's context.is_admin); None for contexts made in code: the admin role decides.
    admin_by_policy: bool | None = None

    @property
    def is_admin(self) -> bool:
        """May see every project's resources (Nova's, Neutron's and Glance's is_admin)."""
        if self.admin_by_policy is not None:
            return self.admin_by_policy
        return "admin" in self.roles

    def policy_credentials(self) -> dict[str, Any]:
        """The credential dict oslo.policy rules are evaluated against."""
        return {
            "user_id": self.user_id,
            "user_domain_id": self.user_domain_id,
            "project_id": self.project_id,
            "project_domain_id": self.project_domain_id,
            "domain_id": self.domain_id,
            "system_scope": self.system_scope,
            "roles": list(self.roles),
            "is_admin": self.is_admin,
        }

    def redacted_copy(self) -> RequestContext:
        """This context without its token: what notifications carry (oslo.messaging asks)."""
        return replace(self, auth_token=None)

    def log_prefix(self) -> str:
        return f"[{self.request_id} {self.user_id or '-'} {self.project_id or '-'}]"
