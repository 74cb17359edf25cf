"""nftables: apply a script in one transaction, list and delete whole tables."""

from __future__ import annotations

import json
from typing import Any

from saphira.privsep.runner import run


def apply(script: str) -> None:
    """``nft -f -``: the kernel commits the whole script or none of it."""
    run(["nft", "-f", "-"], stdin=script)


def list_table(family: str, name: str) -> list[dict[str, Any]] | None:
    """The table's objects as ``nft -j`` lists them (sets, chains, rules), None if absent.

    Each item is a one-key dict such as ``{"rule": {...}}``; the metainfo
    header is dropped.
    """
    out = run(["nft", "-j", "list", "table", family, name], check=False)
    if not out.strip():
        return None
    items: list[dict[str, Any]] = json.loads(out)["nftables"]
    return [item for item in items if "metainfo" not in item]


def delete_table(family: str, name: str) -> None:
    """Idempotent: ``destroy`` is too new for nftables 1.0, so probe first."""
    if list_table(family, name) is not None:
        run(["nft", "delete", "table", family, name])
