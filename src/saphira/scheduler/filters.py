"""Host filters: each says why a host is refused, in words, or None.

Returning the reason (instead of Nova's bool) is what lets "No valid host"
name, per host, the filter and the cause.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import ClassVar

from saphira.exception import ConfigError
from saphira.scheduler.host_state import HostState, Request


class BaseFilter:
    name: ClassVar[str]

    def refuse(self, host: HostState, request: Request) -> str | None:
        raise NotImplementedError


class ComputeFilter(BaseFilter):
    """Only hosts whose nova-compute service is enabled and heard from recently."""

    name = "ComputeFilter"

    def refuse(self, host: HostState, request: Request) -> str | None:
        if not host.has_service:
            return "no nova-compute service record"
        if host.service_disabled:
            why = f" ({host.disabled_reason})" if host.disabled_reason else ""
            return f"compute service disabled{why}"
        if host.forced_down:
            return "compute service forced down"
        if not host.service_up:
            seen = host.last_seen_up.isoformat() if host.last_seen_up else "never"
            return f"compute service down (last heartbeat {seen})"
        return None


class AvailabilityZoneFilter(BaseFilter):
    name = "AvailabilityZoneFilter"

    def refuse(self, host: HostState, request: Request) -> str | None:
        wanted = request.spec.availability_zone
        if wanted and host.availability_zone != wanted:
            return f"in availability zone {host.availability_zone!r}, not {wanted!r}"
        return None


_ARCH_ALIASES = {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64", "i386": "i686"}
_OPS: dict[str, Callable[[int, int], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "=": operator.eq,
    ">": operator.gt,
    "<": operator.lt,
    "!=": operator.ne,
}


def canonical_arch(name: str) -> str:
    lowered = name.strip().lower()
    return _ARCH_ALIASES.get(lowered, lowered)


def version_to_int(text: str) -> int:
    """Nova's convert_version_to_int: "6.0.1" -> 6000001."""
    value = 0
    for part in text.strip().split("."):
        value = value * 1000 + int(part)
    return value


def version_matches(requested: str, actual: int) -> bool:
    """``requested`` is an operator and a version, e.g. ">=6.0"; no operator means ==."""
    text = requested.strip()
    for symbol in sorted(_OPS, key=len, reverse=True):
        if text.startswith(symbol):
            return _OPS[symbol](actual, version_to_int(text[len(symbol) :]))
    return actual == version_to_int(text)


class ImagePropertiesFilter(BaseFilter):
    """The image's hw_architecture, img_hv_type and img_hv_requested_version."""

    name = "ImagePropertiesFilter"

    def refuse(self, host: HostState, request: Request) -> str | None:
        props = request.spec.image_properties
        arch = props.get("hw_architecture") or props.get("architecture")
        if arch and canonical_arch(arch) != canonical_arch(host.arch):
            return f"image wants architecture {arch}, host is {host.arch}"
        hv_type = props.get("img_hv_type") or props.get("hypervisor_type")
        if hv_type and hv_type.lower() != host.hypervisor_type.lower():
            return f"image wants hypervisor {hv_type}, host runs {host.hypervisor_type}"
        wanted = props.get("img_hv_requested_version")
        if wanted:
            try:
                ok = version_matches(wanted, host.hypervisor_version)
            except ValueError:
                return f"image has an unreadable img_hv_requested_version {wanted!r}"
            if not ok:
                return (
                    f"image wants hypervisor version {wanted}, host has {host.hypervisor_version}"
                )
        return None


def _policy(request: Request) -> str | None:
    return request.spec.instance_group_policy


class ServerGroupAffinityFilter(BaseFilter):
    name = "ServerGroupAffinityFilter"

    def refuse(self, host: HostState, request: Request) -> str | None:
        if _policy(request) != "affinity" or not request.group_hosts:
            return None
        if host.host in request.group_hosts:
            return None
        others = ", ".join(sorted(set(request.group_hosts)))
        return f"server group (affinity) members are on {others}"


class ServerGroupAntiAffinityFilter(BaseFilter):
    name = "ServerGroupAntiAffinityFilter"

    def refuse(self, host: HostState, request: Request) -> str | None:
        if _policy(request) != "anti-affinity":
            return None
        if host.host in request.group_hosts:
            return "a member of the server group (anti-affinity) is already on this host"
        return None


FILTERS: dict[str, type[BaseFilter]] = {
    cls.name: cls
    for cls in (
        ComputeFilter,
        AvailabilityZoneFilter,
        ImagePropertiesFilter,
        ServerGroupAffinityFilter,
        ServerGroupAntiAffinityFilter,
    )
}


def load(names: Sequence[str]) -> list[BaseFilter]:
    """The enabled filters, by Nova's class names; an unknown name is a ConfigError."""
    unknown = [name for name in names if name not in FILTERS]
    if unknown:
        raise ConfigError(
            f"[filter_scheduler] enabled_filters: unknown {', '.join(unknown)}; "
            f"available: {', '.join(sorted(FILTERS))}"
        )
    return [FILTERS[name]() for name in names]


def first_refusal(filters: Sequence[BaseFilter], host: HostState, request: Request) -> str | None:
    """ "<FilterName>: <why>" for the first filter that refuses, else None."""
    for host_filter in filters:
        reason = host_filter.refuse(host, request)
        if reason is not None:
            return f"{host_filter.name}: {reason}"
    return None
