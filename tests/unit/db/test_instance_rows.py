"""An info cache's NICs read back exactly as InstanceVIF.from_primitive reads them; a
listing's row becomes an object with every field, as ``__init__`` would make it."""

from __future__ import annotations

import dataclasses
import json
import typing

import pytest

from saphira.db.cell import instance_rows
from saphira.objects import Instance, InstanceVIF
from saphira.objects.base import DATA, VERSION, IncompatibleVersion

FULL = InstanceVIF("3f0c9a51-aaaa-bbbb-cccc-000000000001", "fa:16:3e:00:00:01", "net-1",
                   "private", ["10.0.0.5", "fd00::5"], "ovs", "br-int", 1450, True, True,
                   "nic1")  # fmt: skip
BARE = InstanceVIF("3f0c9a51-aaaa-bbbb-cccc-000000000002", "fa:16:3e:00:00:02", "net-2")
PLAIN = {str, int, bool, list[str], str | None, int | None}


def test_every_field_is_plain_json_so_the_fast_read_keeps_it_as_parsed() -> None:
    hints = typing.get_type_hints(InstanceVIF)
    assert {hints[f.name] for f in dataclasses.fields(InstanceVIF)} <= PLAIN


def test_the_cache_text_reads_back_as_from_primitive_reads_it() -> None:
    older = BARE.to_primitive()
    older[VERSION] = "1.0"
    del older[DATA]["tag"]  # written before 1.1
    newer = FULL.to_primitive()
    newer[VERSION] = "1.9"
    newer[DATA]["from_the_future"] = 1  # a newer minor's field is dropped
    text = json.dumps([FULL.to_primitive(), older, newer])
    read = instance_rows._network_info(text)
    assert read == [InstanceVIF.from_primitive(p) for p in json.loads(text)]
    assert read == [FULL, BARE, FULL]
    assert [type(v) for v in read] == [InstanceVIF] * 3


def test_another_major_version_is_refused_as_from_primitive_refuses_it() -> None:
    other = FULL.to_primitive()
    other[VERSION] = "2.0"
    with pytest.raises(IncompatibleVersion):
        instance_rows._network_info(json.dumps([other]))


def test_a_listed_row_sets_every_field_of_instance_and_needs_nothing_else() -> None:
    """from_columns skips __init__: a new field must be read too, or it would be missing."""
    fields = dataclasses.fields(Instance)
    assert sorted(instance_rows.LISTED) == sorted(f.name for f in fields)
    assert len(set(instance_rows.LISTED)) == len(instance_rows.LISTED)
    assert all(f.init for f in fields)
    assert not hasattr(Instance, "__post_init__") and not hasattr(Instance, "__slots__")
