"""Network namespaces: create, list, delete (each a root command)."""

from __future__ import annotations

import json

from saphira.privsep.runner import run


def names() -> list[str]:
    """Every namespace on the host (``ip netns`` prints nothing, not ``[]``, when none)."""
    out = run(["ip", "-j", "netns", "list"]).strip()
    return [entry["name"] for entry in json.loads(out)] if out else []


def exists(name: str) -> bool:
    return name in names()


def create(name: str) -> None:
    """A namespace with its loopback up (dnsmasq and friends expect ``lo``)."""
    run(["ip", "netns", "add", name])
    run(["ip", "link", "set", "lo", "up"], namespace=name)


def delete(name: str) -> None:
    """Idempotent: a namespace already gone is not an error."""
    if exists(name):
        run(["ip", "netns", "delete", name])
