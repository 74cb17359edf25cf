"""The files of a config drive, laid out as Nova lays them (``metadata_for_config_drive``).

``ec2/<version>/meta-data.json`` and ``user-data`` for every EC2 version not
skipped, and ``openstack/<version>/{meta_data.json, user_data,
vendor_data.json, network_data.json, vendor_data2.json}`` for every
OpenStack version, each with ``latest``. The drive holds no ``password``:
nothing can post one to a read-only disk.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from saphira.metadata import tree, versions
from saphira.metadata.content import InstanceMetadata


def files(md: InstanceMetadata, skip_ec2: Iterable[str] = ()) -> Iterator[tuple[str, bytes]]:
    skipped = set(skip_ec2)
    for version in (*versions.EC2, versions.LATEST):
        if version in skipped:
            continue
        top = md.ec2(versions.resolve(version, versions.EC2))
        if md.user_data is not None:
            yield f"ec2/{version}/user-data", md.user_data
        meta = top.entries["meta-data"]
        assert not isinstance(meta, (str, bytes, int, list))
        yield f"ec2/{version}/meta-data.json", json.dumps(meta.to_json()).encode()
    for version in (*versions.OPENSTACK, versions.LATEST):
        resolved = versions.resolve(version, versions.OPENSTACK)
        for name in tree.openstack_names(md, resolved):
            if name != tree.PASSWORD:
                yield f"openstack/{version}/{name}", tree.openstack_file(md, resolved, name).body
