"""Quota arithmetic for servers: what a request consumes and whether it fits.

Limits follow Nova: -1 is unlimited. Counting usage is the caller's job (a
database query); enforcing atomically is the caller's job too (do it in the
same transaction or under the same lock that creates the rows).
"""

from __future__ import annotations

from collections.abc import Mapping

from saphira.exception import QuotaExceeded

UNLIMITED = -1
SERVER_RESOURCES = ("instances", "cores", "ram")


def server_deltas(vcpus: int, memory_mb: int, count: int = 1) -> dict[str, int]:
    """What ``count`` servers of a flavor add to instances, cores and ram."""
    return {"instances": count, "cores": vcpus * count, "ram": memory_mb * count}


def resize_deltas(old: Mapping[str, int], new: Mapping[str, int]) -> dict[str, int]:
    """Growth only: a downsize never needs headroom (Nova counts the larger flavor)."""
    return {key: new[key] - old.get(key, 0) for key in new if new[key] > old.get(key, 0)}


def headroom(limit: int, used: int) -> int | None:
    """How much more fits; None when unlimited."""
    return None if limit == UNLIMITED else max(limit - used, 0)


def overs(
    limits: Mapping[str, int], usage: Mapping[str, int], deltas: Mapping[str, int]
) -> list[str]:
    """Resources the request would push past their limit, sorted."""
    return sorted(
        resource
        for resource, delta in deltas.items()
        if delta > 0
        and limits.get(resource, UNLIMITED) != UNLIMITED
        and usage.get(resource, 0) + delta > limits[resource]
    )


def enforce(limits: Mapping[str, int], usage: Mapping[str, int], deltas: Mapping[str, int]) -> None:
    over = overs(limits, usage, deltas)
    if over:
        raise _exceeded(over, limits, usage, deltas)


def max_servers(
    limits: Mapping[str, int],
    usage: Mapping[str, int],
    vcpus: int,
    memory_mb: int,
    min_count: int,
    max_count: int,
) -> int:
    """The most servers in [min_count, max_count] the quota allows (Nova's
    min/max semantics); QuotaExceeded naming the tight resources if not even
    ``min_count`` fit.
    """
    return most_that_fit(limits, usage, server_deltas(vcpus, memory_mb), min_count, max_count)


def most_that_fit(
    limits: Mapping[str, int],
    usage: Mapping[str, int],
    each: Mapping[str, int],
    min_count: int,
    max_count: int,
) -> int:
    """How many units of ``each`` (up to ``max_count``) fit the headroom, computed
    once by division, so a huge ``max_count`` costs nothing; QuotaExceeded in
    Nova's words (TooManyInstances) if fewer than ``min_count`` fit.
    """
    fit = max_count
    for resource, per in each.items():
        room = headroom(limits.get(resource, UNLIMITED), usage.get(resource, 0))
        if room is not None and per > 0:
            fit = min(fit, room // per)
    if fit >= min_count:
        return fit
    wanted = {resource: per * min_count for resource, per in each.items()}
    over = overs(limits, usage, wanted)  # what stops even min_count
    requested: dict[str, int | str] = dict(wanted)
    if "instances" in requested and min_count != max_count:
        requested["instances"] = f"{min_count}-{max_count}"  # Nova's "1-20000"
    raise _exceeded(over, limits, usage, requested)


def _exceeded(
    over: list[str],
    limits: Mapping[str, int],
    usage: Mapping[str, int],
    deltas: Mapping[str, int | str],
) -> QuotaExceeded:
    return QuotaExceeded(
        overs=", ".join(over),
        req=", ".join(str(deltas[r]) for r in over),
        used=", ".join(str(usage.get(r, 0)) for r in over),
        allowed=", ".join(str(limits[r]) for r in over),
    )
