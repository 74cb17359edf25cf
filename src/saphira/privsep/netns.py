"""Network namespaces: create, list, delete (helper entry points)."""

from __future__ import annotations

import json

from saphira.privsep import validate
from saphira.privsep.context import entrypoint
from saphira.privsep.runner import run


def names() -> list[str]:
    """Every namespace on the host (``ip netns`` prints nothing, not ``[]``, when none)."""
    out = _list().strip()
    return [entry["name"] for entry in json.loads(out)] if out else []


@entrypoint
def _list() -> str:
    return run(["ip", "-j", "netns", "list"])


def exists(name: str) -> bool:
    return name in names()


@entrypoint
def create(name: str) -> None:
    """A namespace with its loopback up (dnsmasq and friends expect ``lo``)."""
    name = validate.namespace(name)
    run(["ip", "netns", "add", name])
    run(["ip", "link", "set", "lo", "up"], namespace=name)


@entrypoint
def delete(name: str) -> None:
    """Idempotent: a namespace already gone is not an error."""
    if exists(validate.namespace(name)):
        run(["ip", "netns", "delete", name])
