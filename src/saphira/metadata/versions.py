"""The dated versions of both trees, as Nova lists them (cloud-init asks for these)."""

from __future__ import annotations

from saphira.exception import NotFound

#: The EC2 tree's versions; ``latest`` is the last.
EC2 = (
    "1.0", "2007-01-19", "2007-03-01", "2007-08-29", "2007-10-10",
    "2007-12-15", "2008-02-01", "2008-09-01", "2009-04-04",
)  # fmt: skip

FOLSOM = "2012-08-10"
GRIZZLY = "2013-04-04"  # password, random_seed
HAVANA = "2013-10-17"  # vendor_data.json
LIBERTY = "2015-10-15"  # network_data.json, project_id
NEWTON_ONE = "2016-06-30"  # devices
NEWTON_TWO = "2016-10-06"  # vendor_data2.json
OCATA = "2017-02-22"
ROCKY = "2018-08-27"
VICTORIA = "2020-10-14"  # dedicated_cpus

#: The OpenStack tree's versions; ``latest`` is the last.
OPENSTACK = (FOLSOM, GRIZZLY, HAVANA, LIBERTY, NEWTON_ONE, NEWTON_TWO, OCATA, ROCKY, VICTORIA)

LATEST = "latest"


def resolve(version: str, known: tuple[str, ...]) -> str:
    """``latest`` as the newest; an unknown version is a 404."""
    if version == LATEST:
        return known[-1]
    if version not in known:
        raise NotFound()
    return version


def at_least(version: str, required: str, known: tuple[str, ...]) -> bool:
    """Whether a resolved ``version`` is ``required`` or newer."""
    return known.index(version) >= known.index(required)
