"""Answer a path of the metadata trees from an ``InstanceMetadata`` (Nova's ``lookup``).

``/openstack/...`` is the OpenStack tree; anything else is the EC2 tree
(``/`` lists its versions, ``/<date>/meta-data/...``). Unknown versions and
paths are ``NotFound`` (404), as is ``user_data`` when the server has none.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass

from saphira.exception import NotFound
from saphira.metadata import versions
from saphira.metadata.content import InstanceMetadata
from saphira.metadata.ec2 import Ec2Dir

TEXT = "text/plain"
JSON = "application/json"
META_DATA = "meta_data.json"
USER_DATA = "user_data"
PASSWORD = "password"
VENDOR_DATA = "vendor_data.json"
VENDOR_DATA2 = "vendor_data2.json"
NETWORK_DATA = "network_data.json"


@dataclass(frozen=True)
class Item:
    body: bytes
    content_type: str = TEXT


def listing(lines: list[str]) -> Item:
    """A directory's answer: one name a line."""
    return Item("\n".join(lines).encode())


def split(path: str) -> list[str]:
    """Path tokens without empty ones; ``..`` cannot climb above the root."""
    return [token for token in posixpath.normpath("/" + path).split("/") if token]


def root_listing(tokens: list[str]) -> Item | None:
    """What needs no instance: ``/`` and ``/openstack``."""
    if not tokens:
        return listing([*versions.EC2, versions.LATEST])
    if tokens == ["openstack"]:
        return listing([*versions.OPENSTACK, versions.LATEST])
    return None


def is_password(tokens: list[str]) -> bool:
    if len(tokens) != 3 or tokens[0] != "openstack" or tokens[2] != PASSWORD:
        return False
    version = versions.resolve(tokens[1], versions.OPENSTACK)
    return versions.at_least(version, versions.GRIZZLY, versions.OPENSTACK)


def lookup(md: InstanceMetadata, path: str) -> Item:
    tokens = split(path)
    found = root_listing(tokens)
    if found is not None:
        return found
    if tokens[0] == "openstack":
        return _openstack(md, tokens[1:])
    return _ec2(md, tokens[1:] if tokens[0] == "ec2" else tokens)


def openstack_names(md: InstanceMetadata, version: str) -> list[str]:
    """What ``/openstack/<version>`` lists (``version`` resolved)."""

    def since(required: str) -> bool:
        return versions.at_least(version, required, versions.OPENSTACK)

    names = [META_DATA]
    if md.user_data is not None:
        names.append(USER_DATA)
    names += [PASSWORD] if since(versions.GRIZZLY) else []
    names += [VENDOR_DATA] if since(versions.HAVANA) else []
    names += [NETWORK_DATA] if since(versions.LIBERTY) else []
    names += [VENDOR_DATA2] if since(versions.NEWTON_TWO) else []
    return names


def _openstack(md: InstanceMetadata, tokens: list[str]) -> Item:
    version = versions.resolve(tokens[0], versions.OPENSTACK)
    names = openstack_names(md, version)
    if len(tokens) == 1:
        return listing(names)
    if len(tokens) != 2 or tokens[1] not in names:
        raise NotFound()
    return openstack_file(md, version, tokens[1])


def openstack_file(md: InstanceMetadata, version: str, name: str) -> Item:
    if name == USER_DATA:
        assert md.user_data is not None  # not listed otherwise
        return Item(md.user_data)
    if name == PASSWORD:
        return Item(md.password.encode())
    data: object
    if name == META_DATA:
        data = md.meta_data(version)
    elif name == NETWORK_DATA:
        data = md.network.to_json()
    else:  # vendor data: Saphira has no vendor data drivers, so both are empty
        data = {}
    return Item(json.dumps(data).encode(), JSON)


def _ec2(md: InstanceMetadata, tokens: list[str]) -> Item:
    node: object = md.ec2(versions.resolve(tokens[0], versions.EC2))
    for token in tokens[1:]:
        if not isinstance(node, Ec2Dir) or token not in node.entries:
            raise NotFound()
        node = node.entries[token]
    if isinstance(node, Ec2Dir):
        return listing(node.listing())
    if isinstance(node, list):
        return listing([str(item) for item in node])
    return Item(node if isinstance(node, bytes) else str(node).encode())
