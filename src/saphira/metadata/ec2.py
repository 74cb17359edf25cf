"""The EC2 tree (``/<date>/meta-data/...``, ``/<date>/user-data``), as Nova builds it.

A directory lists its entries one a line, sub-directories with a trailing
``/``; ``public-keys/`` lists ``0=<key name>`` (EC2's odd rendering, kept
because cloud-init parses it), and ``public-keys/0/openssh-key`` is the key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

from saphira.metadata import versions

if TYPE_CHECKING:
    from saphira.metadata.content import InstanceMetadata

Ec2Node = Union[str, bytes, int, list[str], "Ec2Dir"]


@dataclass(frozen=True)
class Ec2Dir:
    entries: dict[str, Ec2Node] = field(default_factory=dict)
    listed_as: str | None = None  # the line its parent lists it as, instead of "name/"

    def listing(self) -> list[str]:
        lines = []
        for name in sorted(self.entries):
            node = self.entries[name]
            if isinstance(node, Ec2Dir):
                lines.append(node.listed_as or f"{name}/")
            else:
                lines.append(name)
        return lines

    def to_json(self) -> dict[str, object]:
        """The plain form a config drive's ``meta-data.json`` holds."""
        return {
            name: node.to_json() if isinstance(node, Ec2Dir) else node
            for name, node in self.entries.items()
            if not isinstance(node, bytes)
        }


def ec2_tree(md: InstanceMetadata, version: str) -> Ec2Dir:
    def since(required: str) -> bool:
        return versions.at_least(version, required, versions.EC2)

    fixed_ip = md.fixed_ips[0] if md.fixed_ips else ""
    meta: dict[str, Ec2Node] = {
        "ami-id": md.ec2_image_id,
        "ami-launch-index": md.launch_index,
        "ami-manifest-path": "FIXME",  # Nova's constant
        "instance-id": md.ec2_instance_id,
        "hostname": md.hostname,
        "local-ipv4": fixed_ip,
        "reservation-id": md.reservation_id,
        "security-groups": list(md.security_groups),
    }
    if md.keys:
        key = md.keys[0]
        meta["public-keys"] = Ec2Dir(
            {"0": Ec2Dir({"openssh-key": key.data}, listed_as=f"0={key.name}")}
        )
    if since("2007-01-19"):
        meta.update({"local-hostname": md.hostname, "public-hostname": md.hostname,
                     "public-ipv4": ""})  # fmt: skip
    if since("2007-08-29"):
        meta["instance-type"] = md.flavor_name
    if since("2007-12-15"):
        meta["block-device-mapping"] = Ec2Dir({"ami": "vda", "root": "/dev/vda"})
    if since("2008-02-01"):
        meta["placement"] = Ec2Dir({"availability-zone": md.availability_zone})
    if since("2008-09-01"):
        meta["instance-action"] = "none"
    top: dict[str, Ec2Node] = {"meta-data": Ec2Dir(meta)}
    if md.user_data is not None:
        top["user-data"] = md.user_data
    return Ec2Dir(top)
