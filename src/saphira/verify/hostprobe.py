"""The service layer's probe on this host: a connect from the network's DHCP namespace
through the privileged helper (root, or the sudoers rule for it)."""

from __future__ import annotations

from saphira.privsep import context, netns
from saphira.privsep import reach as privileged_reach
from saphira.privsep.errors import PrivsepError
from saphira.verify.reach import Answer


def probe(namespace: str, address: str, port: int) -> Answer:
    why = context.unavailable_reason()
    if why is not None:
        return Answer(None, f"no privileged helper here: {why}")
    try:
        if not netns.exists(namespace):
            return Answer(None, f"no namespace {namespace} on this host: run it on the host "
                          "of the network's DHCP agent")  # fmt: skip
        refused = privileged_reach.tcp_connect(namespace, address, port)
    except PrivsepError as error:
        return Answer(None, f"the privileged helper failed: {error.message}")
    return Answer(not refused, refused or "connected")
