"""What a bed leaves on the machine, found by its names: namespaces, links, mounts, paths."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass

from saphira.devtools.testbed.layout import Layout
from saphira.devtools.testbed.mounts import mount_points


@dataclass(frozen=True)
class Footprint:
    netns: frozenset[str]
    links: frozenset[str]
    mounts: frozenset[str]
    paths: frozenset[str]


def _ip_json(*args: str) -> list[dict[str, object]]:
    out = subprocess.run(["ip", "-j", *args], capture_output=True, text=True, check=True).stdout
    found: list[dict[str, object]] = json.loads(out or "[]")
    return found


def footprint(layout: Layout) -> Footprint:
    """Everything in the root namespaces whose name carries the bed's."""
    mark = layout.bed
    netns = {str(entry["name"]) for entry in _ip_json("netns", "list")}
    links = {str(entry["ifname"]) for entry in _ip_json("link")}
    pins = [pin for n in layout.nodes for pin in (layout.mount_ns(n), layout.uts_ns(n))]
    paths = [layout.state_file, layout.bed_dir, *pins]
    return Footprint(
        netns=frozenset(name for name in netns if mark in name),
        links=frozenset(name for name in links if f"tb{mark}-" in name),
        mounts=frozenset(point for point in mount_points() if mark in point),
        paths=frozenset(str(path) for path in paths if path.exists()),
    )
