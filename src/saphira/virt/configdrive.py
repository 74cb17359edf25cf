"""The config drive: the metadata a guest would ask for, on an ISO 9660 disk.

Nova writes it with genisoimage (``-J -r -V config-2``). Here pycdlib writes
the same layout in process (ISO 9660 with Joliet and Rock Ridge, volume
label ``config-2``): no root, no extra Debian package on compute hosts, no
command line to build, and the same code on every host. Readers (Linux's
isofs, cloud-init, Windows) use the Rock Ridge or Joliet names; the plain
ISO 9660 names are short generated ones (``D3``, ``F12.;1``), which every
level of the standard accepts whatever the real name's characters.

A drive is attached when the create asked for one (``config_drive``),
``[DEFAULT] force_config_drive`` is set, or the image says
``img_config_drive=mandatory``.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pycdlib
from oslo_config import cfg

from saphira.metadata import InstanceMetadata, Settings, drive
from saphira.objects import Instance
from saphira.virt.types import ImageMeta

LABEL = "config-2"
FILE_NAME = "disk.config"  # in the instance's directory, as Nova names it


@dataclass(frozen=True)
class DriveSettings:
    force: bool = False
    metadata: Settings = field(default_factory=Settings)
    skip_ec2: tuple[str, ...] = ()

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> DriveSettings:
        metadata = Settings(conf.api.dhcp_domain or "", conf.default_availability_zone)
        return cls(conf.force_config_drive, metadata, tuple(conf.api.config_drive_skip_versions))


def required(instance: Instance, image: ImageMeta, force: bool) -> bool:
    """Nova's ``configdrive.required_by``."""
    mandatory = dict(image.properties).get("img_config_drive") == "mandatory"
    return force or mandatory or str(instance.config_drive).lower() == "true"


def write(path: Path, instance: Instance, settings: DriveSettings) -> None:
    """The drive of ``instance`` at ``path``, written whole or not at all."""
    md = InstanceMetadata.build(instance, settings.metadata)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        write_iso(tmp, drive.files(md, settings.skip_ec2))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_iso(path: Path, files: Iterable[tuple[str, bytes]]) -> None:
    iso = pycdlib.PyCdlib()
    iso.new(interchange_level=1, vol_ident=LABEL, sys_ident="LINUX", joliet=3,
            rock_ridge="1.09", app_ident_str="saphira")  # fmt: skip
    names: dict[PurePosixPath, str] = {PurePosixPath("/"): ""}

    def directory(where: PurePosixPath) -> str:
        if where not in names:
            parent = directory(where.parent)
            names[where] = f"{parent}/D{len(names)}"
            iso.add_directory(names[where], rr_name=where.name, joliet_path=str(where))
        return names[where]

    try:
        for count, (name, data) in enumerate(files):
            where = PurePosixPath("/", name)
            iso_path = f"{directory(where.parent)}/F{count}.;1"
            iso.add_fp(io.BytesIO(data), len(data), iso_path, rr_name=where.name,
                       joliet_path=str(where))  # fmt: skip
        iso.write(str(path))
    finally:
        iso.close()
