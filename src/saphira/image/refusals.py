"""The 413s of image data, worded as Glance words them (image_data.py and
glance.common.exception); the staging area's cap is ours."""

from __future__ import annotations

from saphira.exception import PayloadTooLarge


class StorageQuotaFull(PayloadTooLarge):
    msg_fmt = (
        "Image exceeds the storage quota: The size of the data %(image_size)s will exceed "
        "the limit. %(remaining)s bytes remaining."
    )


class StagingFull(PayloadTooLarge):
    msg_fmt = (
        "Image staging area is full: The size of the data %(image_size)s will exceed "
        "the staging area's limit. %(remaining)s bytes remaining."
    )


class ImageSizeLimitExceeded(PayloadTooLarge):
    msg_fmt = "The incoming image is too large: The provided image is too large."


class StorageFull(PayloadTooLarge):
    msg_fmt = (
        "Image storage media is full: There is not enough disk space on the image storage media."
    )


def quota_full(size: int, remaining: int) -> StorageQuotaFull:
    return StorageQuotaFull(image_size=size, remaining=remaining)


def staging_full(size: int, remaining: int) -> StagingFull:
    return StagingFull(image_size=size, remaining=remaining)
