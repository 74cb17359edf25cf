"""Layer 8: the service answers on the guest's address, from the network's DHCP
namespace on this host (the host side of the wire), through the privileged helper."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from saphira.verify.facts import Port
from saphira.verify.model import Check, Wanted


@dataclass(frozen=True)
class Answer:
    """What a connect from the namespace found: ``reached``, or the reason it did not;
    ``reached`` None when this process could not try (no such namespace on this host, no
    privileged helper): the layer is then not checked, and says why."""

    reached: bool | None
    detail: str


Probe = Callable[[str, str, int], Answer]  # (namespace, address, port)


def namespace(network_id: str) -> str:
    return f"qdhcp-{network_id}"


def check(port: Port, wanted: Wanted, answer: Answer) -> Check:
    target = f"{port.ipv4}:{wanted.port}/{wanted.protocol}"
    if answer.reached:
        return Check(True, f"{target} answered from {namespace(port.network.id)}")
    return Check(False, f"{target} did not answer from {namespace(port.network.id)}: "
                 f"{answer.detail}")  # fmt: skip
