"""Upload and import: the status machine queued -> saving -> active around the store.

The database transaction is never held while bytes flow: the image is marked
``saving`` first, the data streams to a temp file, is inspected, and only then
is the file renamed and the image made ``active`` in a second transaction.
Every failure path removes the temp file and moves the image on: back to
``queued`` when the data was refused (Glance's restore), ``killed`` when the
client broke off mid-upload.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from saphira.context import RequestContext
from saphira.db.image.models import Image
from saphira.exception import BadRequest, Conflict, PayloadTooLarge, ServiceUnavailable
from saphira.image import formats, qemu
from saphira.image.quotas import remaining
from saphira.image.records import Records, utcnow
from saphira.image.store import FilesystemStore, SizeExceeded, Truncated, Written

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    size_cap: int
    storage_quota: int  # bytes, 0 unlimited
    hash_algo: str
    qemu_img: str = "qemu-img"


class ClientDisconnected(BadRequest):
    msg_fmt = "The client stopped sending image data before the end."


@dataclass
class DataService:
    records: Records
    store: FilesystemStore
    staging: FilesystemStore
    limits: Limits

    def _allowance(self, owner: str | None) -> int:
        limit = self.limits.size_cap
        if owner is not None:
            with self.records.session() as session:
                _, used = self.records.owned_stats(session, owner)
            left = remaining(self.limits.storage_quota, used)
            if left is not None:
                limit = min(limit, left)
        return limit

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

    def set_status(self, image_id: str, status: str, *, only_from: str) -> None:
        with self.records.session() as session:
            image = session.get(Image, image_id)
            if image is not None and image.status == only_from:
                image.status, image.updated_at = status, utcnow()

    def write(
        self, image: Image, chunks: Iterable[bytes], expected: int | None, store: FilesystemStore
    ) -> Written:
        """Stream to a temp file of ``store``; 413 past the cap or quota."""
        limit = self._allowance(image.owner)
        if expected is not None and expected > limit:
            raise PayloadTooLarge(f"Image exceeds the storage quota or size cap ({limit} bytes).")
        try:
            return store.write(
                image.id, chunks, limit=limit, hash_algo=self.limits.hash_algo, expected=expected
            )
        except SizeExceeded:
            raise PayloadTooLarge(
                f"Image exceeds the storage quota or size cap ({limit} bytes)."
            ) from None
        except Truncated:
            raise ClientDisconnected() from None

    def upload(
        self, ctx: RequestContext, image_id: str, chunks: Iterable[bytes], expected: int | None
    ) -> None:
        """PUT /file: queued -> saving -> active, or queued/killed with nothing stored."""
        del ctx  # authorization happened at the API edge
        image = self.begin(image_id, from_states=("queued",), to="saving")
        try:
            written = self.write(image, chunks, expected, self.store)
        except ClientDisconnected:
            self.set_status(image_id, "killed", only_from="saving")
            raise
        except BaseException:
            self.set_status(image_id, "queued", only_from="saving")
            raise
        self.finish(image_id, written, from_status="saving")

    def stage(self, image_id: str, chunks: Iterable[bytes], expected: int | None) -> None:
        """PUT /stage (glance-direct): queued -> uploading, data in the staging store."""
        image = self.begin(image_id, from_states=("queued",), to="uploading")
        try:
            written = self.write(image, chunks, expected, self.staging)
            self.staging.commit(written, image_id)
        except BaseException:
            self.set_status(image_id, "queued", only_from="uploading")
            raise

    def import_staged(self, image_id: str) -> None:
        """POST /import glance-direct: uploading -> importing -> active."""
        image = self.begin(image_id, from_states=("uploading",), to="importing")
        if not self.staging.exists(image_id):
            self.set_status(image_id, "queued", only_from="importing")
            raise Conflict("No staged data for this image.")
        try:
            written = self.write(image, self.staging.read(image_id), None, self.store)
        except BaseException:
            self.set_status(image_id, "uploading", only_from="importing")
            raise
        self.finish(image_id, written, from_status="importing")
        self.staging.delete(image_id)

    def finish(self, image_id: str, written: Written, *, from_status: str) -> None:
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
            self.set_status(image_id, "queued", only_from=from_status)
            raise

    def _check_quota(self, session: Session, image: Image, size: int) -> None:
        if image.owner is None or self.limits.storage_quota <= 0:
            return
        _, used = self.records.owned_stats(session, image.owner)
        if used + size > self.limits.storage_quota:
            raise PayloadTooLarge("Image exceeds the storage quota.")

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
                    image.status = "queued"
                else:
                    image.status = "uploading"
                image.updated_at = utcnow()
                reset.append(image.id)
        for image_id in reset:
            LOG.warning("image %s: interrupted upload reset", image_id)
        return reset
