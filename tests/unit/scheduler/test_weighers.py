from __future__ import annotations

import pytest
from oslo_config import cfg

from saphira.conf import make_conf
from saphira.exception import ConfigError
from saphira.scheduler import weighers
from tests.unit.scheduler.helpers import candidate, request


@pytest.fixture
def conf() -> cfg.ConfigOpts:
    conf = make_conf()
    conf([])
    return conf


def _order(chain: list[weighers.BaseWeigher], **req: object) -> list[str]:
    cands = [
        candidate("small", {"MEMORY_MB": 1024, "VCPU": 8, "DISK_GB": 10}),
        candidate("big", {"MEMORY_MB": 8192, "VCPU": 2, "DISK_GB": 50}),
        candidate("mid", {"MEMORY_MB": 4096, "VCPU": 4, "DISK_GB": 100}),
    ]
    ranked = weighers.weigh(chain, cands, request(**req))
    return [c.state.host for _, c in ranked]


def test_ram_weigher_spreads_and_packs() -> None:
    assert _order([weighers.RAMWeigher(1.0)]) == ["big", "mid", "small"]
    assert _order([weighers.RAMWeigher(-1.0)]) == ["small", "mid", "big"]


def test_cpu_and_disk_weighers() -> None:
    assert _order([weighers.CPUWeigher(1.0)]) == ["small", "mid", "big"]
    assert _order([weighers.DiskWeigher(1.0)]) == ["mid", "big", "small"]


def test_multipliers_combine_normalized_weights() -> None:
    # RAM: big 1.0, mid 3/7, small 0; CPU x2: small 2.0, mid 2/3, big 0.
    # Totals: small 2.0, mid 1.10, big 1.0 (RAM alone would put big first).
    assert _order([weighers.RAMWeigher(1.0), weighers.CPUWeigher(2.0)]) == [
        "small",
        "mid",
        "big",
    ]


def test_soft_affinity_weighers_count_members() -> None:
    group = {"instance_group_hosts": ["mid", "mid", "big"]}
    soft = weighers.ServerGroupSoftAffinityWeigher(1.0)
    anti = weighers.ServerGroupSoftAntiAffinityWeigher(1.0)
    assert _order([soft], instance_group_policy="soft-affinity", **group)[0] == "mid"
    assert _order([anti], instance_group_policy="soft-anti-affinity", **group)[0] == "small"
    assert _order([soft], **group) == ["small", "big", "mid"]  # no policy: all equal


def test_load_reads_the_multipliers(conf: cfg.ConfigOpts) -> None:
    conf.set_override("ram_weight_multiplier", -2.5, group="filter_scheduler")
    chain = {w.name: w.multiplier for w in weighers.load(conf)}
    assert chain["RAMWeigher"] == -2.5
    assert set(chain) == set(weighers.WEIGHERS)
    conf.set_override("weight_classes", ["Nope"], group="filter_scheduler")
    with pytest.raises(ConfigError, match="Nope"):
        weighers.load(conf)
