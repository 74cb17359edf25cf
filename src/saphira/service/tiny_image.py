"""The tiny test image and a flavor that fits it, so a new cloud can boot a guest at once.

``saphira-tiny`` is our CirrOS (``saphira.guest_image``, built from
Debian packages); ``saphira.tiny`` is a flavor sized for it. Each is added
only when nothing of that name exists, so every start can call ``register``
and only the first one does work. The image goes straight through the image
service's backend (the same data path as an upload, inspection included),
because the APIs do not listen yet when ``saphira up`` prepares its state.
A build that fails (no apt mirror, a tool missing) costs a warning, never
the start: the cloud is useful without the image.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from oslo_config import cfg

from saphira import guest_image
from saphira.api.image import build_backend
from saphira.api.image.app import Backend
from saphira.context import RequestContext
from saphira.db.api.connect import api_url, session_for
from saphira.db.api.models import Flavor
from saphira.db.identity import make_identity_engine
from saphira.db.image.models import Image, ImageProperty
from saphira.db.transactions import Database
from saphira.exception import SaphiraError
from saphira.identity import resources
from saphira.image.records import utcnow

LOG = logging.getLogger(__name__)
IMAGE_NAME = "saphira-tiny"
KERNEL_NAME = f"{IMAGE_NAME}-kernel"
RAMDISK_NAME = f"{IMAGE_NAME}-ramdisk"
IMAGE_PROPERTIES = {"hw_disk_bus": "virtio"}
FLAVOR_NAME = "saphira.tiny"
FLAVOR_SIZE = {"vcpus": 1, "memory_mb": 128, "root_gb": 1}
CHUNK = 1 << 20


@dataclass(frozen=True)
class Parts:
    """What is registered: the disk, and the kernel and ramdisk it boots with directly
    (Nova's AMI-style trio) when the build gives them."""

    disk: Path
    kernel: Path | None = None
    ramdisk: Path | None = None
    cmdline: str = ""


Builder = Callable[[Path], Parts]  # output directory -> the parts


def build_parts(out_dir: Path) -> Parts:
    """The image's parts copied into ``out_dir`` from the user cache's build (made
    there once: the build is deterministic, and it took ~10 s of each fresh
    state's first start); its kernel and initramfs are the KVM probe's guest.

    The disk boots on its own (SYSLINUX), but its servers boot directly from the
    uncompressed kernel: under TCG that skips the firmware, the boot loader and
    the kernel's own decompression, 2.5 s of CPU instead of 7 for each boot.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    with guest_image.shared() as image:
        for part in (image.bzimage, image.vmlinux, image.initramfs, image.qcow2):
            shutil.copyfile(part, out_dir / part.name)
        shutil.copyfile(image.directory / "manifest.json", out_dir / "manifest.json")
    return Parts(out_dir / image.qcow2.name, out_dir / image.vmlinux.name,
                 out_dir / image.initramfs.name, image.cmdline)  # fmt: skip


def register(conf: cfg.ConfigOpts, build: Builder = build_parts) -> None:
    """Add whichever of the image and the flavor is missing; log what was added."""
    image_id = _ensure_image(conf, build)
    flavor = _ensure_flavor(conf)
    added = [f"image {IMAGE_NAME} ({image_id})"] if image_id else []
    added += [f"flavor {FLAVOR_NAME}"] if flavor else []
    if added:
        LOG.info("registered %s", " and ".join(added))


def _ensure_image(conf: cfg.ConfigOpts, build: Builder) -> str | None:
    """The id of the image registered now; None if one existed or it could not be built."""
    backend = build_backend(conf)
    try:
        with backend.records.session() as session:
            if session.scalar(sa.select(Image.id).where(Image.name == IMAGE_NAME).limit(1)):
                return None
        out_dir = Path(conf.state_path) / "test-image"
        try:
            parts = build(out_dir)
        except Exception as error:  # apt, dpkg, mkfs, qemu-img: any of them may be missing
            LOG.warning("test image %s not registered: building it failed: %s", IMAGE_NAME, error)
            return None
        return _upload_parts(backend, admin_project(conf), parts)
    finally:
        backend.records.engine.dispose()


def admin_project(conf: cfg.ConfigOpts) -> str | None:
    """The owner Glance gives an image the admin uploads (bootstrap made the project)."""
    engine = make_identity_engine(conf)
    try:
        with Database(engine, read_committed=False).reader() as session:
            found = resources.list_projects(
                session, name="admin", domain_id=resources.DEFAULT_DOMAIN_ID
            )
            return found[0].id if found else None
    finally:
        engine.dispose()


def _chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as data:
        while chunk := data.read(CHUNK):
            yield chunk


def _upload_parts(backend: Backend, owner: str | None, parts: Parts) -> str | None:
    """Kernel and ramdisk first, then the disk that names them; the disk's id. A refused
    upload leaves none of the three behind."""
    uploads = _Uploads(backend, owner)
    properties = dict(IMAGE_PROPERTIES)
    try:
        if parts.kernel is not None:
            properties["kernel_id"] = uploads.add(KERNEL_NAME, "aki", parts.kernel, {})
            properties["os_command_line"] = parts.cmdline
        if parts.ramdisk is not None:
            properties["ramdisk_id"] = uploads.add(RAMDISK_NAME, "ari", parts.ramdisk, {})
        return uploads.add(IMAGE_NAME, "qcow2", parts.disk, properties)
    except (SaphiraError, OSError) as error:
        uploads.undo()
        LOG.warning("test image %s not registered: upload refused: %s", IMAGE_NAME, error)
        return None


class _Uploads:
    """Public images of the admin project, recorded then uploaded; ``undo`` removes
    every record (and its data) made so far."""

    def __init__(self, backend: Backend, owner: str | None) -> None:
        self.backend, self.owner, self.made = backend, owner, list[str]()

    def add(self, name: str, disk_format: str, path: Path, properties: dict[str, str]) -> str:
        image_id, now = str(uuid.uuid4()), utcnow()
        container = "bare" if disk_format == "qcow2" else disk_format  # aki, ari: Glance's pairs
        with self.backend.records.session() as session:
            session.add(
                Image(
                    id=image_id, name=name, status="queued", visibility="public",
                    owner=self.owner, protected=False, os_hidden=False, disk_format=disk_format,
                    container_format=container, min_disk=0, min_ram=0, created_at=now,
                    updated_at=now, tags=[],
                    properties=[ImageProperty(name=k, value=v) for k, v in properties.items()],
                )
            )  # fmt: skip
        self.made.append(image_id)
        admin = RequestContext(project_id=self.owner, roles=("admin",))
        self.backend.data.upload(admin, image_id, _chunks(path), path.stat().st_size)
        return image_id

    def undo(self) -> None:
        for image_id in reversed(self.made):
            with contextlib.suppress(OSError):
                self.backend.data.store.delete(image_id)
            with self.backend.records.session() as session:
                session.delete(self.backend.records.get(session, image_id))


def _ensure_flavor(conf: cfg.ConfigOpts) -> bool:
    """Add the flavor unless one of that name exists; whether it was added."""
    with session_for("api", api_url(conf), conf) as session:
        if session.scalar(sa.select(Flavor.id).where(Flavor.name == FLAVOR_NAME)) is not None:
            return False
        session.add(
            Flavor(
                flavorid=str(uuid.uuid4()), name=FLAVOR_NAME, is_public=True, disabled=False,
                ephemeral_gb=0, swap=0, rxtx_factor=1.0,
                description=f"Fits the {IMAGE_NAME} test image.", **FLAVOR_SIZE,
            )
        )  # fmt: skip
    return True
