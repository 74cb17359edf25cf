"""Who is asking, and what the network rules let them do.

Rules are evaluated against Neutron's targets (see saphira.policies.network);
answers are remembered for the request, because a list checks the same
attribute rule for every row of the same project.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from saphira.context import RequestContext
from saphira.db.network.models import Network
from saphira.exception import BadRequest, Forbidden
from saphira.netsvc.errors import PolicyNotAuthorized
from saphira.policy import Enforcer


def target(project_id: str, network: Network | None = None) -> dict[str, Any]:
    """The policy target of a resource owned by ``project_id``, on ``network`` if any."""
    found: dict[str, Any] = {"project_id": project_id, "tenant_id": project_id}
    if network is not None:
        found["network:project_id"] = network.project_id
        found["network:shared"] = network.shared
    return found


@dataclass
class Caller:
    ctx: RequestContext
    enforcer: Enforcer
    _answers: dict[tuple[str, tuple[tuple[str, Any], ...]], bool] = field(default_factory=dict)

    @property
    def project_id(self) -> str:
        return self.ctx.project_id or ""

    @property
    def is_admin(self) -> bool:
        return self.ctx.is_admin

    def allowed(self, rule: str, where: Mapping[str, Any]) -> bool:
        key = (rule, tuple(sorted(where.items())))
        answer = self._answers.get(key)
        if answer is None:
            try:
                self.enforcer.enforce(self.ctx, rule, where)
                answer = True
            except Forbidden:
                answer = False
            self._answers[key] = answer
        return answer

    def authorize(self, rule: str, where: Mapping[str, Any]) -> None:
        if not self.allowed(rule, where):
            raise PolicyNotAuthorized(action=rule)

    def owner_for(self, requested: str | None) -> str:
        """The project a new resource belongs to: the caller's, or (admins only) another."""
        if requested and requested != self.project_id and not self.is_admin:
            raise BadRequest(
                "Specifying 'project_id' or 'tenant_id' other than the authenticated "
                "project in request requires admin privileges"
            )
        return requested or self.project_id
