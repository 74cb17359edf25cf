"""saphira-manage cell_v2: the install guide's output, exit codes and idempotency."""

from __future__ import annotations

import re

import prettytable
import pytest

from saphira.db.api.cells import CELL0_UUID
from saphira.manage.cells import mask_transport_url
from tests.unit.db import helpers
from tests.unit.manage.conftest import Run

CELL0_DB = "mysql+pymysql://nova:NOVA_DBPASS@controller/nova_cell0?charset=utf8"
CELL1_DB = "mysql+pymysql://nova:NOVA_DBPASS@controller/nova_cell1?charset=utf8"
CELL1_MQ = "rabbit://openstack:RABBIT_PASS@controller:5672/nova_cell1"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

# The install guide's table, with cell1's UUID left to fill in.
GUIDE_TABLE = """\
+-------+--------------------------------------+----------------------------------------------------+--------------------------------------------------------------+----------+
|  Name |                 UUID                 |                   Transport URL                    |                     Database Connection                      | Disabled |
+-------+--------------------------------------+----------------------------------------------------+--------------------------------------------------------------+----------+
| cell0 | 00000000-0000-0000-0000-000000000000 |                       none:/                       | mysql+pymysql://nova:****@controller/nova_cell0?charset=utf8 |  False   |
| cell1 | {uuid} | rabbit://openstack:****@controller:5672/nova_cell1 | mysql+pymysql://nova:****@controller/nova_cell1?charset=utf8 |  False   |
+-------+--------------------------------------+----------------------------------------------------+--------------------------------------------------------------+----------+
"""  # noqa: E501


def _guide_cells(run: Run) -> str:
    assert run("api_db", "sync")[0] == 0
    assert run("cell_v2", "map_cell0", "--database_connection", CELL0_DB) == (0, "", "")
    code, out, err = run(
        "cell_v2", "create_cell", "--name=cell1", "--verbose",
        f"--transport-url={CELL1_MQ}", f"--database_connection={CELL1_DB}",
    )  # fmt: skip
    assert (code, err) == (0, "")
    assert UUID.match(out.strip())
    return out.strip()


def test_list_cells_prints_the_guide_table_with_passwords_masked(run: Run) -> None:
    uuid = _guide_cells(run)
    assert run("cell_v2", "list_cells") == (0, GUIDE_TABLE.format(uuid=uuid), "")


def test_list_cells_matches_prettytable_as_nova_manage_prints_it(run: Run) -> None:
    uuid = _guide_cells(run)
    table = prettytable.PrettyTable(
        ["Name", "UUID", "Transport URL", "Database Connection", "Disabled"]
    )
    table.add_row(["cell0", CELL0_UUID, "none:/", CELL0_DB, False])
    table.add_row(["cell1", uuid, CELL1_MQ, CELL1_DB, False])
    assert run("cell_v2", "list_cells", "--verbose")[1] == f"{table}\n"


def test_verbose_list_shows_passwords(run: Run) -> None:
    _guide_cells(run)
    out = run("cell_v2", "list_cells", "--verbose")[1]
    assert "RABBIT_PASS" in out
    assert "nova:NOVA_DBPASS@controller/nova_cell0" in out
    assert "****" not in out


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        ("none:/", "none:/"),
        ("rabbit://u:p@h:5672/", "rabbit://u:****@h:5672/"),
        ("rabbit://u:p@h1:5672,v:q@h2:5672/vh", "rabbit://u:****@h1:5672,v:****@h2:5672/vh"),
        ("rabbit://h/", "rabbit://h/"),
        ("inproc://", "inproc://"),
    ],
)
def test_mask_transport_url(url: str, masked: str) -> None:
    assert mask_transport_url(url) == masked


def test_create_cell_again_is_idempotent_and_a_clash_exits_2(run: Run) -> None:
    uuid = _guide_cells(run)
    again = run(
        "cell_v2", "create_cell", "--name=cell1", "--verbose",
        f"--transport-url={CELL1_MQ}", f"--database_connection={CELL1_DB}",
    )  # fmt: skip
    assert again == (0, f"{uuid}\n", "")
    code, out, err = run("cell_v2", "create_cell", "--name=cell2", f"--transport-url={CELL1_MQ}",
                         f"--database_connection={CELL1_DB}")  # fmt: skip
    assert (code, out) == (2, "")
    assert err == (
        "ERROR: The specified transport_url and/or database_connection combination "
        f"already exists for another cell with uuid {uuid}.\n"
    )


def test_map_cell0_twice_says_so(run: Run) -> None:
    run("api_db", "sync")
    assert run("cell_v2", "map_cell0") == (0, "", "")
    assert run("cell_v2", "map_cell0") == (0, "Cell0 is already setup\n", "")


def test_discover_hosts_verbose_wording(run: Run) -> None:
    run("api_db", "sync")
    run("cell_v2", "map_cell0")
    uuid = run("cell_v2", "create_cell", "--name=cell1", "--verbose")[1].strip()
    assert run("db", "sync") == (0, "", "")
    cell_db = next(
        line.split("|")[4].strip()
        for line in run("cell_v2", "list_cells", "--verbose")[1].splitlines()
        if "cell1" in line
    )
    node = helpers.register_compute(cell_db, "compute1")
    assert run("cell_v2", "discover_hosts", "--verbose") == (
        0,
        "Found 2 cell mappings.\n"
        "Skipping cell0 since it does not contain hosts.\n"
        f"Getting computes from cell 'cell1': {uuid}\n"
        f"Checking host mapping for compute host 'compute1': {node}\n"
        f"Creating host mapping for compute host 'compute1': {node}\n"
        f"Found 1 unmapped computes in cell: {uuid}\n",
        "",
    )
    assert run("cell_v2", "discover_hosts", "--strict")[0] == 1  # nothing new
    assert run("cell_v2", "discover_hosts")[:2] == (0, "")
    listed = run("cell_v2", "list_hosts")[1].splitlines()
    assert listed[1] == "| Cell Name |              Cell UUID               | Hostname |"
    assert listed[3] == f"|   cell1   | {uuid} | compute1 |"
    assert len(listed) == 5


def test_delete_and_update_cell_exit_codes(run: Run) -> None:
    run("api_db", "sync")
    uuid = run("cell_v2", "create_cell", "--name=cell1", "--verbose")[1].strip()
    assert run("cell_v2", "update_cell", f"--cell_uuid={uuid}", "--name=c1", "--disable")[0] == 0
    assert "|  c1  |" in run("cell_v2", "list_cells")[1]
    assert "|   True   |" in run("cell_v2", "list_cells")[1]
    assert run("cell_v2", "delete_cell", f"--cell_uuid={uuid}") == (0, "", "")
    code, _, err = run("cell_v2", "delete_cell", f"--cell_uuid={uuid}")
    assert (code, err) == (1, f"ERROR: Cell with uuid {uuid} was not found.\n")
