"""The Launch form's image choices: disk images only, as Horizon offers them."""

from __future__ import annotations

from saphira.dashboard import cloud
from saphira.dashboard.cloud import Choice


def test_kernels_and_ramdisks_are_not_offered_and_the_disk_that_names_them_is() -> None:
    found = [Choice("1", "saphira-tiny", "qcow2"), Choice("2", "saphira-tiny-kernel", "aki"),
             Choice("3", "saphira-tiny-ramdisk", "ari"), Choice("4", "cirros", "raw")]  # fmt: skip
    assert [c.name for c in cloud.bootable(found)] == ["saphira-tiny", "cirros"]
