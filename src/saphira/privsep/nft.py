"""nftables: apply a script in one transaction, list and delete whole tables.

The helper applies only scripts that replace Saphira's own tables (``saphira*``
in the bridge and inet families): a script is a sequence of ``table F N``,
``delete table F N`` and ``table F N { ... }`` blocks, nothing else at the top
level, and no ``include``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from saphira.privsep import validate
from saphira.privsep.context import entrypoint
from saphira.privsep.runner import run

_TOP = re.compile(r"(delete table|table) (\S+) (\S+)( \{)?")


@entrypoint
def apply(script: str) -> None:
    """``nft -f -``: the kernel commits the whole script or none of it."""
    run(["nft", "-f", "-"], stdin=checked_script(script))


def checked_script(script: object) -> str:
    """The script, if every top-level statement names one of Saphira's tables."""
    if not isinstance(script, str) or "include" in script or "\\" in script:
        raise validate.InvalidArgument(detail="nftables script (include or escape)")
    depth = 0
    for line in script.splitlines():
        text = line.strip()
        if depth == 0 and text:
            found = _TOP.fullmatch(text)
            if found is None or (found[1] == "delete table" and found[4]):
                raise validate.InvalidArgument(detail=f"nftables statement {text[:80]!r}")
            validate.table(found[2], found[3])
        depth += text.count("{") - text.count("}")
        if depth < 0:
            raise validate.InvalidArgument(detail="nftables script (unbalanced braces)")
    if depth:
        raise validate.InvalidArgument(detail="nftables script (unbalanced braces)")
    return script


def list_table(family: str, name: str) -> list[dict[str, Any]] | None:
    """The table's objects as ``nft -j`` lists them (sets, chains, rules), None if absent.

    Each item is a one-key dict such as ``{"rule": {...}}``; the metainfo
    header is dropped.
    """
    out = _list(family, name)
    if not out.strip():
        return None
    items: list[dict[str, Any]] = json.loads(out)["nftables"]
    return [item for item in items if "metainfo" not in item]


@entrypoint
def _list(family: str, name: str) -> str:
    return run(["nft", "-j", "list", "table", *validate.table(family, name)], check=False)


@entrypoint
def delete_table(family: str, name: str) -> None:
    """Idempotent: ``destroy`` is too new for nftables 1.0, so probe first."""
    if _list(family, name).strip():
        run(["nft", "delete", "table", *validate.table(family, name)])
