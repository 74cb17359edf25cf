"""Limits against floods: a finite default quota, bytes in flight counted, the
free-space floor checked before each chunk is written."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from saphira import conf
from saphira.api.image import limits_from_conf
from saphira.exception import ConfigError, SaphiraError
from saphira.image.admission import Admission
from saphira.image.disk import DiskGuard, Space
from saphira.image.ledger import Budget, Ledger
from saphira.image.quotas import Reserve, parse_reserve
from saphira.image.refusals import StorageFull, StorageQuotaFull, quota_full
from saphira.image.store import FilesystemStore

MIB = 1024 * 1024


def test_default_limits_are_finite() -> None:
    limits = limits_from_conf(conf.load([]))
    assert 0 < limits.storage_quota <= 100 * 1024**3
    assert limits.staging_cap > 0
    assert limits.reserve.floor(10**12) > 0
    assert 0 < conf.load([]).image_api.image_count_total <= 10_000  # records, not only bytes


@pytest.mark.parametrize(
    ("text", "reserve"),
    [("1GB", Reserve(size=1024**3)), ("5%", Reserve(percent=5.0)), ("0", Reserve())],
)
def test_parse_reserve(text: str, reserve: Reserve) -> None:
    assert parse_reserve(text) == reserve


@pytest.mark.parametrize("text", ["101%", "-1", "lots"])
def test_bad_reserve_names_the_option(text: str) -> None:
    with pytest.raises(ConfigError, match="filesystem_store_reserve"):
        parse_reserve(text)


class Stored:
    """The bytes a fake database holds under a budget."""

    def __init__(self) -> None:
        self.bytes = 0

    def __call__(self) -> int:
        return self.bytes


def test_claims_in_flight_share_a_budget() -> None:
    ledger, stored = Ledger(), Stored()
    budget = Budget("project:p", 3 * MIB, stored, quota_full)
    with ledger.claim([budget]) as first:
        first.need(2 * MIB)
        with ledger.claim([budget]) as second:
            second.need(MIB)
            with pytest.raises(StorageQuotaFull) as refused:
                second.need(MIB + 1)
            assert refused.value.kwargs == {"image_size": MIB + 1, "remaining": MIB}
        stored.bytes = 2 * MIB  # the first is recorded before its claim ends: counted twice
        assert ledger.in_flight("project:p") == 2 * MIB
    assert ledger.in_flight("project:p") == 0
    with ledger.claim([budget]) as third:
        third.need(MIB)
        with pytest.raises(StorageQuotaFull):
            third.need(MIB + 1)


def test_a_failed_claim_is_released() -> None:
    ledger = Ledger()
    budget = Budget("staging", MIB, Stored(), quota_full)
    with pytest.raises(RuntimeError), ledger.claim([budget]) as claim:
        claim.need(MIB)
        raise RuntimeError("the client broke off")
    assert ledger.in_flight("staging") == 0


class Disk:
    """A filesystem whose free space is what the directory's files leave of ``free``;
    it notes the largest file it saw each time it was asked."""

    def __init__(self, free: int) -> None:
        self.free, self.largest = free, 0

    def __call__(self, path: str) -> Space:
        sizes = [os.path.getsize(os.path.join(path, n)) for n in os.listdir(path)]
        self.largest = max([self.largest, *sizes])
        return Space(self.free - sum(sizes), 100 * self.free)


@contextmanager
def _gate(store: FilesystemStore, disk: Disk, reserve: int) -> Iterator[Admission]:
    with Ledger().claim([]) as claim:
        yield Admission(claim, DiskGuard(Reserve(size=reserve), disk), store.datadir, 2**40)


def _chunks(count: int) -> Iterator[bytes]:
    for _ in range(count):
        yield b"\1" * MIB


def test_reserve_refuses_the_chunk_that_would_cross_it(tmp_path: Path) -> None:
    store, disk = FilesystemStore(str(tmp_path)), Disk(free=100 * MIB)
    store.ensure()
    with _gate(store, disk, reserve=99 * MIB) as gate, pytest.raises(StorageFull):
        store.write("img", _chunks(2), limit=2**40, hash_algo="sha512", gate=gate)
    assert disk.largest == MIB  # the first chunk fit; the second was never written
    assert os.listdir(tmp_path) == []


def test_reserve_refuses_an_announced_size_before_writing(tmp_path: Path) -> None:
    store, disk = FilesystemStore(str(tmp_path)), Disk(free=100 * MIB)
    store.ensure()
    with _gate(store, disk, reserve=99 * MIB) as gate, pytest.raises(StorageFull) as refused:
        gate.upfront(2 * MIB)
    assert isinstance(refused.value, SaphiraError) and refused.value.code == 413
    assert os.listdir(tmp_path) == []
