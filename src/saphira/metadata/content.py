"""``InstanceMetadata``: everything both trees show, read once from the instance.

Built from an ``Instance`` whose network info cache is loaded, plus the few
settings the operator chooses (``Settings``); after that every answer is a
pure function of the value, so the metadata API can cache it and the config
drive can write it out.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from dataclasses import dataclass, field

from saphira.metadata import versions
from saphira.metadata.ec2 import Ec2Dir, ec2_tree
from saphira.metadata.network_data import NetworkData, network_data
from saphira.objects import Instance

#: Nova splits the encrypted password into system_metadata chunks of this size.
PASSWORD_CHUNK = 255
PASSWORD_KEYS = tuple(f"password_{i}" for i in range(4))


@dataclass(frozen=True)
class Settings:
    """What the operator decides: ``[api] dhcp_domain`` and the default zone."""

    dhcp_domain: str = "novalocal"
    default_availability_zone: str = "nova"


@dataclass(frozen=True)
class PublicKey:
    name: str
    type: str
    data: str


@dataclass(frozen=True)
class InstanceMetadata:
    uuid: str
    name: str
    hostname: str  # with the DHCP domain
    project_id: str
    launch_index: int
    availability_zone: str
    reservation_id: str
    flavor_name: str
    ec2_instance_id: str
    ec2_image_id: str
    meta: dict[str, str]
    keys: tuple[PublicKey, ...]
    user_data: bytes | None
    fixed_ips: tuple[str, ...]
    security_groups: tuple[str, ...]
    network: NetworkData
    password: str
    admin_pass: str | None = None  # only on a config drive, as Nova writes it there
    random_seed: str = field(default_factory=lambda: base64.b64encode(os.urandom(512)).decode())

    @classmethod
    def build(
        cls, instance: Instance, settings: Settings = Settings(), admin_pass: str | None = None
    ) -> InstanceMetadata:
        domain = settings.dhcp_domain
        return cls(
            uuid=instance.uuid,
            name=instance.display_name,
            hostname=f"{instance.hostname}.{domain}" if domain else instance.hostname,
            project_id=instance.project_id,
            launch_index=instance.launch_index,
            availability_zone=instance.availability_zone or settings.default_availability_zone,
            reservation_id=instance.reservation_id,
            flavor_name=instance.flavor.name,
            ec2_instance_id=f"i-{instance.id or 0:08x}",
            ec2_image_id=f"ami-{instance.image_ref.replace('-', '')[:8] or '0' * 8}",
            meta=dict(instance.metadata),
            keys=_keys(instance),
            user_data=_user_data(instance.user_data),
            fixed_ips=tuple(ip for vif in instance.network_info for ip in vif.fixed_ips),
            security_groups=_groups(instance.system_metadata),
            network=network_data(instance.network_info),
            password=password_of(instance.system_metadata),
            admin_pass=admin_pass,
        )

    def meta_data(self, version: str) -> dict[str, object]:
        """``openstack/<version>/meta_data.json`` (``version`` already resolved)."""

        def since(required: str) -> bool:
            return versions.at_least(version, required, versions.OPENSTACK)

        data: dict[str, object] = {"uuid": self.uuid}
        if self.meta:
            data["meta"] = dict(self.meta)
        if self.admin_pass is not None:
            data["admin_pass"] = self.admin_pass
        if self.keys:
            data["public_keys"] = {key.name: key.data for key in self.keys}
            data["keys"] = [{"name": k.name, "type": k.type, "data": k.data} for k in self.keys]
        data.update(hostname=self.hostname, name=self.name, launch_index=self.launch_index,
                    availability_zone=self.availability_zone)  # fmt: skip
        if since(versions.GRIZZLY):
            data["random_seed"] = self.random_seed
        if since(versions.LIBERTY):
            data["project_id"] = self.project_id
        if since(versions.NEWTON_ONE):
            data["devices"] = []
        if since(versions.VICTORIA):
            data["dedicated_cpus"] = []
        return data

    def ec2(self, version: str) -> Ec2Dir:
        """The EC2 tree of ``version`` (resolved): ``meta-data/...`` and ``user-data``."""
        return ec2_tree(self, version)


def _keys(instance: Instance) -> tuple[PublicKey, ...]:
    if not instance.key_name:
        return ()
    data = instance.key_data or ""
    kind = "x509" if data.startswith("-----BEGIN CERTIFICATE") else "ssh"
    return (PublicKey(instance.key_name, kind, data),)


def _user_data(text: str | None) -> bytes | None:
    if text is None:
        return None
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None  # the compute API refuses such data; a row that still has it shows none


def _groups(system_metadata: dict[str, str]) -> tuple[str, ...]:
    try:
        names = json.loads(system_metadata.get("security_groups", '["default"]'))
    except ValueError:
        return ("default",)
    return tuple(str(name) for name in names) if isinstance(names, list) else ("default",)


def password_of(system_metadata: dict[str, str]) -> str:
    """The password the guest posted, kept in chunks as Nova keeps it."""
    return "".join(system_metadata.get(key, "") for key in PASSWORD_KEYS)


def password_chunks(password: str) -> dict[str, str]:
    """``password`` as system_metadata entries (empty string: every chunk cleared)."""
    return {
        key: password[i * PASSWORD_CHUNK : (i + 1) * PASSWORD_CHUNK]
        for i, key in enumerate(PASSWORD_KEYS)
    }
