"""Upload and import: the status machine queued -> saving -> active around the store.

The database transaction is never held while bytes flow: the image is marked
``saving`` first, the data streams to a temp file, is inspected, and only then
is the file renamed and the image made ``active`` in a second transaction.
Every failure path removes the temp file and moves the image on: back to
``queued`` when the data was refused (Glance's restore), ``killed`` when the
client broke off mid-upload. Every write goes through an ``admission`` gate
(size cap, storage quota, staging cap, free-space floor), whose claim on the
quota lasts until the data's size is recorded.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from saphira.context import RequestContext
from saphira.db.image.models import Image
from saphira.exception import BadRequest, Conflict, ServiceUnavailable
from saphira.image import formats, qemu
from saphira.image.admission import Admission, Admitter
from saphira.image.disk import DiskGuard, Space, statvfs_space
from saphira.image.ledger import Ledger
from saphira.image.quotas import Reserve
from saphira.image.records import Records, utcnow
from saphira.image.refusals import ImageSizeLimitExceeded, quota_full
from saphira.image.store import FilesystemStore, SizeExceeded, Truncated, Written

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    size_cap: int
    storage_quota: int  # bytes, 0 unlimited
    hash_algo: str
    qemu_img: str = "qemu-img"
    staging_cap: int = 0  # bytes, 0 unlimited
    reserve: Reserve = field(default_factory=Reserve)


class ClientDisconnected(BadRequest):
    msg_fmt = "The client stopped sending image data before the end."


@dataclass
class DataService:
    records: Records
    store: FilesystemStore
    staging: FilesystemStore
    limits: Limits
    ledger: Ledger = field(default_factory=Ledger)
    space: Callable[[str], Space] = statvfs_space

    @property
    def admitter(self) -> Admitter:
        lim = self.limits
        disk = DiskGuard(lim.reserve, self.space)
        return Admitter(
            self.records, self.ledger, disk, lim.size_cap, lim.storage_quota, lim.staging_cap
        )

    def begin(self, image_id: str, *, from_states: tuple[str, ...], to: str) -> Image:
        with self.records.session() as session:
            image = self.records.get(session, image_id, lock=True)
            if image.status not in from_states:
                raise Conflict(
                    f"Image status transition from {image.status} to {to} is not allowed"
                )
            if not (image.disk_format and image.container_format):
                raise BadRequest(
                    "Properties disk_format, container_format must be set prior to saving data."
                )
            image.status, image.updated_at = to, utcnow()
            return image

    def set_status(
        self, image_id: str, status: str, *, only_from: str, forget_size: bool = False
    ) -> None:
        """Move ``image_id`` on if it is still ``only_from``; ``forget_size`` when its
        (staged) data is gone, so the size stops counting against the quota."""
        with self.records.session() as session:
            image = session.get(Image, image_id)
            if image is not None and image.status == only_from:
                image.status, image.updated_at = status, utcnow()
                if forget_size:
                    image.size = None

    def write(
        self,
        image: Image,
        chunks: Iterable[bytes],
        expected: int | None,
        store: FilesystemStore,
        gate: Admission,
    ) -> Written:
        """Stream to a temp file of ``store`` through ``gate``: 413 before any byte over a limit."""
        gate.upfront(expected)
        try:
            return store.write(
                image.id,
                chunks,
                limit=self.limits.size_cap,
                hash_algo=self.limits.hash_algo,
                expected=expected,
                gate=gate,
            )
        except SizeExceeded:
            raise ImageSizeLimitExceeded() from None
        except Truncated:
            raise ClientDisconnected() from None

    def upload(
        self, ctx: RequestContext, image_id: str, chunks: Iterable[bytes], expected: int | None
    ) -> None:
        """PUT /file: queued -> saving -> active, or queued/killed with nothing stored."""
        del ctx  # authorization happened at the API edge
        image = self.begin(image_id, from_states=("queued",), to="saving")
        try:
            with self.admitter.admit(image, self.store.datadir, staging=False) as gate:
                written = self.write(image, chunks, expected, self.store, gate)
                self.finish(image_id, written, from_status="saving", restore="queued")
        except ClientDisconnected:
            self.set_status(image_id, "killed", only_from="saving")
            raise
        except BaseException:
            self.set_status(image_id, "queued", only_from="saving")
            raise

    def stage(self, image_id: str, chunks: Iterable[bytes], expected: int | None) -> None:
        """PUT /stage (glance-direct): queued -> uploading, data in the staging store.

        The staged size is recorded at once (as Glance does), so staged data
        counts against the project's quota and the staging area's cap."""
        image = self.begin(image_id, from_states=("queued",), to="uploading")
        try:
            with self.admitter.admit(image, self.staging.datadir, staging=True) as gate:
                written = self.write(image, chunks, expected, self.staging, gate)
                self._keep_staged(image_id, written)
        except BaseException:
            self.set_status(image_id, "queued", only_from="uploading")
            raise

    def _keep_staged(self, image_id: str, written: Written) -> None:
        renamed = False
        try:
            with self.records.session() as session:
                image = self.records.get(session, image_id, lock=True)
                if image.status != "uploading":
                    raise Conflict(f"Image {image_id} changed status to {image.status}")
                self.staging.commit(written, image_id)
                renamed = True
                image.size, image.updated_at = written.size, utcnow()
        except BaseException:
            self.staging.discard(written)
            if renamed:
                self.staging.delete(image_id)
            raise

    def import_staged(self, image_id: str) -> None:
        """POST /import glance-direct: uploading -> importing -> active.

        A refusal (quota, disk, data) leaves the image ``uploading`` with its
        staged data, to import again or delete."""
        image = self.begin(image_id, from_states=("uploading",), to="importing")
        if not self.staging.exists(image_id):
            self.set_status(image_id, "queued", only_from="importing", forget_size=True)
            raise Conflict("No staged data for this image.")
        staged = self._staged_data(image_id)
        try:
            with self.admitter.admit(image, self.store.datadir, staging=False) as gate:
                size = self.staging.size(image_id)
                written = self.write(image, staged, size, self.store, gate)
                self.finish(image_id, written, from_status="importing", restore="uploading")
        except BaseException:
            self.set_status(image_id, "uploading", only_from="importing")
            raise
        self.staging.delete(image_id)

    def _staged_data(self, image_id: str) -> Iterator[bytes]:
        """The staged file, opened only when the first chunk is asked for."""
        yield from self.staging.read(image_id)

    def finish(self, image_id: str, written: Written, *, from_status: str, restore: str) -> None:
        """Inspect the data, then rename it into place and make the image active."""
        renamed = False
        try:
            virtual_size = self._inspect(written, image_id)
            with self.records.session() as session:
                image = self.records.get(session, image_id, lock=True)
                if image.status != from_status:
                    raise Conflict(f"Image {image_id} changed status to {image.status}")
                self._check_quota(session, image, written.size)
                self.store.commit(written, image_id)
                renamed = True
                image.status, image.updated_at = "active", utcnow()
                image.size, image.virtual_size = written.size, virtual_size
                image.checksum = written.checksum
                image.os_hash_algo, image.os_hash_value = written.hash_algo, written.hash_value
        except BaseException:
            self.store.discard(written)
            if renamed:  # the rename happened but the transaction did not commit
                self.store.delete(image_id)
            self.set_status(image_id, restore, only_from=from_status)
            raise

    def _check_quota(self, session: Session, image: Image, size: int) -> None:
        """Glance's recheck once the size is known (another process may have stored meanwhile)."""
        quota = self.limits.storage_quota
        if image.owner is None or quota <= 0:
            return
        used = self.records.stored_bytes(session, image.owner, image.id)
        if used + size > quota:
            raise quota_full(size, max(quota - used, 0))

    def _inspect(self, written: Written, image_id: str) -> int:
        image_format = self._declared(image_id)
        try:
            formats.inspect(written.head, written.tail, image_format)
            info = qemu.info(written.path, image_format, self.limits.qemu_img)
        except formats.UnsafeImage as error:
            raise BadRequest(
                f"Image data is not valid for disk_format {image_format}: {error}"
            ) from None
        except qemu.QemuImgError as error:
            LOG.error("image %s: %s", image_id, error)
            raise ServiceUnavailable("The image data could not be inspected.") from None
        return info.virtual_size

    def _declared(self, image_id: str) -> str:
        with self.records.session() as session:
            fmt = self.records.get(session, image_id).disk_format
        return fmt or "raw"

    def recover(self) -> list[str]:
        """At start-up: nothing half-written stays; saving/importing images go back."""
        self.store.remove_partials()
        self.staging.remove_partials()
        reset: list[str] = []
        with self.records.session() as session:
            stuck = session.scalars(
                select(Image).where(Image.status.in_(("saving", "importing", "uploading")))
            ).all()
            for image in stuck:
                staged = os.path.exists(self.staging.path(image.id))
                if image.status == "saving" or not staged:
                    self.store.delete(image.id)
                    image.status, image.size = "queued", None
                else:
                    image.status = "uploading"
                image.updated_at = utcnow()
                reset.append(image.id)
        for image_id in reset:
            LOG.warning("image %s: interrupted upload reset", image_id)
        return reset
