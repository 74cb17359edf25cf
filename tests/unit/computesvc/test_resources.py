"""saphira.computesvc: the create claim, quota limits, key pairs, groups, flavors."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from saphira.computesvc import create, flavors, keypairs, quota, server_groups
from saphira.computesvc.quota import OverQuota, QuotaEngine, Scope
from saphira.db.api.models import Flavor as FlavorRow
from saphira.db.api.models import InstanceMapping
from saphira.domain.quota import server_deltas
from saphira.exception import Conflict, NotFound, QuotaExceeded
from saphira.objects import Instance, RequestSpec
from tests.unit.computesvc.conftest import Cloud
from tests.unit.db.instance_helpers import TINY, make

LIMITS = {"instances": 3, "cores": 20, "ram": 51200, "key_pairs": 2, "server_groups": 1,
          "server_group_members": 10, "metadata_items": 2}  # fmt: skip


def _make(count: int) -> list[tuple[Instance, RequestSpec]]:
    made = [make() for _ in range(count)]
    return [(i, RequestSpec(i.uuid, i.project_id, i.user_id, TINY)) for i in made]


def test_claim_records_as_many_servers_as_fit_and_no_more(cloud: Cloud) -> None:
    engine = QuotaEngine(LIMITS)
    each = server_deltas(TINY.vcpus, TINY.memory_mb)
    with cloud.directory.api() as session:
        made = create.claim(engine, cloud.caller(session), Scope("p1", "u1"), each, (1, 5),
                            None, _make)  # fmt: skip
    assert len(made) == 3
    with cloud.directory.api() as session:
        assert len(session.scalars(sa.select(InstanceMapping)).all()) == 3
        with pytest.raises(QuotaExceeded):
            create.claim(engine, cloud.caller(session), Scope("p1", "u1"), each, (1, 1), None,
                         _make)  # fmt: skip
    with cloud.directory.api() as session:
        assert len(session.scalars(sa.select(InstanceMapping)).all()) == 3  # nothing half-made


def test_a_stored_limit_wins_over_the_default_until_reverted(cloud: Cloud) -> None:
    engine = QuotaEngine(LIMITS)
    with cloud.directory.api() as session:
        caller = cloud.caller(session, admin=True)
        quota.store_limit(caller, "p1", None, "instances", 7)
        assert quota.limits(engine, caller, "p1")["instances"] == 7
        assert quota.limits(engine, caller, "p1")["floating_ips"] == 10  # legacy network
        assert "floating_ips" not in quota.limits(engine, caller, "p1", legacy=False)
        quota.revert(caller, "p1", None)
        assert quota.limits(engine, caller, "p1")["instances"] == 3
        with pytest.raises(OverQuota):
            quota.check_metadata(engine, caller, "p1", 3)


def test_a_key_pair_name_is_taken_once_and_counts_against_quota(cloud: Cloud) -> None:
    engine = QuotaEngine(LIMITS)
    key = {"fingerprint": "f", "public_key": "ssh-ed25519 AAAA", "key_type": "ssh"}
    with cloud.directory.api() as session:
        caller = cloud.caller(session)
        keypairs.create(engine, caller, "u1", "k1", **key)
        with pytest.raises(Conflict):
            keypairs.create(engine, caller, "u1", "k1", **key)
        keypairs.create(engine, caller, "u1", "k2", **key)
        with pytest.raises(OverQuota, match="too many key pairs"):
            keypairs.create(engine, caller, "u1", "k3", **key)
        assert [row.name for row in keypairs.list_keypairs(caller, "u1")] == ["k1", "k2"]
        with pytest.raises(NotFound):
            keypairs.get(caller, "k1", "someone-else")


def test_another_projects_group_does_not_exist_for_a_member(cloud: Cloud) -> None:
    engine = QuotaEngine(LIMITS)
    with cloud.directory.api() as session:
        made = server_groups.create(engine, cloud.caller(session, "p2"), "g", "affinity", {}).uuid
    with cloud.directory.api() as session:
        assert server_groups.visible(cloud.caller(session, "p1"), made) is None
        group = server_groups.get(cloud.caller(session, "p1", admin=True), made)
        assert (group.name, group.policy, group.members) == ("g", "affinity", ())
        listed = server_groups.list_groups(cloud.caller(session, "p1"), every_project=False,
                                           offset=0, limit=None)  # fmt: skip
        assert listed == []


def test_a_private_flavor_is_seen_by_its_projects_only(cloud: Cloud) -> None:
    with cloud.directory.api() as session:
        admin = cloud.caller(session, admin=True)
        row = flavors.create(admin, FlavorRow(flavorid="p", name="private", memory_mb=64,
                                              vcpus=1, root_gb=1, is_public=False))  # fmt: skip
        flavors.add_access(admin, row, "p1")
    with cloud.directory.api() as session:
        assert create.flavor(cloud.caller(session, "p1"), "p").name == "private"
        with pytest.raises(NotFound):
            flavors.get_visible(cloud.caller(session, "p2"), "p")
        assert flavors.list_flavors(cloud.caller(session, "p2"), flavors.FlavorQuery()) == []
