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

import logging
import shutil
import uuid
from collections.abc import Callable, Iterator
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
IMAGE_PROPERTIES = {"hw_disk_bus": "virtio"}
FLAVOR_NAME = "saphira.tiny"
FLAVOR_SIZE = {"vcpus": 1, "memory_mb": 128, "root_gb": 1}
CHUNK = 1 << 20

Builder = Callable[[Path], Path]  # output directory -> the qcow2 disk


def build_qcow2(out_dir: Path) -> Path:
    """The image's parts copied into ``out_dir`` from the user cache's build (made
    there once: the build is deterministic, and it took ~10 s of each fresh
    state's first start); its kernel and initramfs are the KVM probe's guest."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with guest_image.shared() as image:
        for part in (image.bzimage, image.vmlinux, image.initramfs, image.qcow2):
            shutil.copyfile(part, out_dir / part.name)
        shutil.copyfile(image.directory / "manifest.json", out_dir / "manifest.json")
    return out_dir / image.qcow2.name


def register(conf: cfg.ConfigOpts, build: Builder = build_qcow2) -> None:
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
            qcow2 = build(out_dir)
        except Exception as error:  # apt, dpkg, mkfs, qemu-img: any of them may be missing
            LOG.warning("test image %s not registered: building it failed: %s", IMAGE_NAME, error)
            return None
        return _upload(backend, admin_project(conf), qcow2)
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


def _upload(backend: Backend, owner: str | None, qcow2: Path) -> str | None:
    """Create the record and upload the disk; a refused upload leaves no record behind."""
    image_id = str(uuid.uuid4())
    now = utcnow()
    with backend.records.session() as session:
        session.add(
            Image(
                id=image_id, name=IMAGE_NAME, status="queued", visibility="public", owner=owner,
                protected=False, os_hidden=False, disk_format="qcow2", container_format="bare",
                min_disk=0, min_ram=0, created_at=now, updated_at=now, tags=[],
                properties=[ImageProperty(name=k, value=v) for k, v in IMAGE_PROPERTIES.items()],
            )
        )  # fmt: skip
    admin = RequestContext(project_id=owner, roles=("admin",))
    try:
        backend.data.upload(admin, image_id, _chunks(qcow2), qcow2.stat().st_size)
    except (SaphiraError, OSError) as error:
        with backend.records.session() as session:
            session.delete(backend.records.get(session, image_id))
        LOG.warning("test image %s not registered: upload refused: %s", IMAGE_NAME, error)
        return None
    return image_id


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
