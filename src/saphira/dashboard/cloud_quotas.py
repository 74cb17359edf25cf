"""The project's quota usage for the Overview page: the compute and network APIs' own
figures (``GET /os-quota-sets/<project>/detail``, ``GET /v2.0/quotas/<project>/details``),
read in parallel (openstacksdk's ``/limits`` warns of fields it deprecated on every read).

Nova's limits carry no key pair usage (key pairs belong to the user), so the
user's key pairs are counted from their list, as Horizon's overview does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from saphira.dashboard import charts
from saphira.dashboard.cloud import Conn
from saphira.dashboard.parallel import Calls

UNLIMITED = -1


@dataclass(frozen=True)
class Usage:
    label: str
    used: int
    limit: int  # UNLIMITED (-1): no limit
    unit: str = ""

    @property
    def limited(self) -> bool:
        return self.limit >= 0

    @property
    def percent(self) -> int:
        """How much of the limit is used, 0 to 100 (an over-used limit shows full)."""
        return charts.percent(self.used, self.limit)

    @property
    def level(self) -> str:
        """The bar's colour class (``charts.level``); "ok" with no limit."""
        return charts.level(self.used, self.limit)

    @property
    def text(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        if not self.limited:
            return f"{self.used}{unit} used, no limit"
        return f"{self.used}{unit} of {self.limit}{unit} used"


def _number(value: object, default: int = 0) -> int:
    try:
        return int(str(value))
    except ValueError:
        return default


def _network(details: Mapping[str, object] | None, label: str) -> Usage:
    found = details or {}
    return Usage(label, _number(found.get("used")), _number(found.get("limit"), UNLIMITED))


def usage(calls: Calls, conn: Conn, project_id: str) -> list[Usage]:
    compute, network, keys = calls.gather(
        lambda: conn.compute.get_quota_set(project_id, usage=True),
        lambda: conn.network.get_quota(project_id, details=True),
        lambda: list(conn.compute.keypairs()),
    )
    used = compute.usage or {}

    def of(label: str, name: str, unit: str = "") -> Usage:
        limit = _number(getattr(compute, name, None), UNLIMITED)
        return Usage(label, _number(used.get(name, 0)), limit, unit)

    return [
        of("Instances", "instances"),
        of("VCPUs", "cores"),
        of("RAM", "ram", "MiB"),
        Usage("Key pairs", len(keys), _number(compute.key_pairs, UNLIMITED)),
        _network(network.networks, "Networks"),
        _network(network.ports, "Ports"),
        _network(network.security_groups, "Security groups"),
    ]
