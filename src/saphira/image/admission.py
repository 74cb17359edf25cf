"""What one write may take: the size cap, the project's storage quota, the
staging area's cap and the disk's free-space floor, each refused with 413
before a byte over it is written (see ``ledger`` and ``disk``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from saphira.db.image.models import Image
from saphira.image.disk import DiskGuard
from saphira.image.ledger import Budget, Claim, Ledger
from saphira.image.records import Records
from saphira.image.refusals import ImageSizeLimitExceeded, quota_full, staging_full


@dataclass
class Admission:
    """The gate of one write into ``datadir`` (a store's ``Gate``)."""

    claim: Claim
    disk: DiskGuard
    datadir: str
    size_cap: int

    def upfront(self, expected: int | None) -> None:
        """Refuse an announced size at once, before reading the body."""
        if expected is None:
            return
        if expected > self.size_cap:
            raise ImageSizeLimitExceeded()
        self.claim.need(expected)
        self.disk.check(self.datadir, expected)

    def __call__(self, total: int, step: int) -> None:
        self.claim.need(total)
        self.disk.check(self.datadir, step)


@dataclass(frozen=True)
class Admitter:
    records: Records
    ledger: Ledger
    disk: DiskGuard
    size_cap: int
    storage_quota: int  # bytes, 0 unlimited
    staging_cap: int  # bytes, 0 unlimited

    @contextmanager
    def admit(self, image: Image, datadir: str, *, staging: bool) -> Iterator[Admission]:
        """The gate for writing ``image``'s data; its bytes stay counted until the block ends."""
        with self.ledger.claim(self.budgets(image, staging=staging)) as claim:
            yield Admission(claim, self.disk, datadir, self.size_cap)

    def budgets(self, image: Image, *, staging: bool) -> list[Budget]:
        found: list[Budget] = []
        owner, image_id = image.owner, image.id
        if owner is not None and self.storage_quota > 0:

            def stored() -> int:
                with self.records.session() as session:
                    return self.records.stored_bytes(session, owner, image_id)

            found.append(Budget(f"project:{owner}", self.storage_quota, stored, quota_full))
        if staging and self.staging_cap > 0:

            def staged() -> int:
                with self.records.session() as session:
                    return self.records.staged_bytes(session)

            found.append(Budget("staging", self.staging_cap, staged, staging_full))
        return found
