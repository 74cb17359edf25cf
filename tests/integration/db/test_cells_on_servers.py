"""The install guide's nova-manage sequence against real PostgreSQL and MariaDB."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from saphira.manage.main import main
from tests.integration.db.conftest import CreateDatabase
from tests.unit.db import helpers

pytestmark = pytest.mark.integration

SEQUENCE = (
    ("api_db", "sync"),
    ("cell_v2", "map_cell0"),
    ("cell_v2", "create_cell", "--name=cell1", "--verbose"),
    ("db", "sync"),
    ("cell_v2", "list_cells"),
)


def _write_conf(path: Path, api: str, cell: str) -> Path:
    path.write_text(
        "[DEFAULT]\ntransport_url = rabbit://openstack:RABBIT_PASS@controller:5672/\n"
        f"state_path = {path.parent}/state\n"
        f"[api_database]\nconnection = {api}\n[database]\nconnection = {cell}\n"
    )
    return path


def _run(capsys: pytest.CaptureFixture[str], conf: Path, *argv: str) -> tuple[int, str, str]:
    code = main(["--config-file", str(conf), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_guide_sequence_twice(
    create_database: CreateDatabase, prefix: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    api = create_database(f"{prefix}_api")
    cell = create_database(prefix)
    cell0 = create_database(f"{prefix}_cell0")
    conf = _write_conf(tmp_path / "saphira.conf", api, cell)
    first = [_run(capsys, conf, *argv) for argv in SEQUENCE]
    assert [(code, err) for code, _, err in first] == [(0, "")] * len(SEQUENCE)
    cell1_uuid = first[2][1].strip()

    table = first[4][1]
    password = make_url(api).password
    assert password and str(password) not in table
    masked_cell0 = make_url(cell0).render_as_string(hide_password=True).replace("***", "****")
    assert "| cell0 | 00000000-0000-0000-0000-000000000000 |" in table
    assert masked_cell0 in table
    assert f"| cell1 | {cell1_uuid} | rabbit://openstack:****@controller:5672/ |" in table

    node = helpers.register_compute(cell, "compute1")
    code, out, err = _run(capsys, conf, "cell_v2", "discover_hosts", "--verbose")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "Found 2 cell mappings.",
        "Skipping cell0 since it does not contain hosts.",
        f"Getting computes from cell 'cell1': {cell1_uuid}",
        f"Checking host mapping for compute host 'compute1': {node}",
        f"Creating host mapping for compute host 'compute1': {node}",
        f"Found 1 unmapped computes in cell: {cell1_uuid}",
    ]
    assert helpers.mapped_flags(cell) == {"compute1": 1}
    assert helpers.snapshot(cell0)["compute_nodes"] == []  # db sync reached cell0 too

    before = [helpers.snapshot(url) for url in (api, cell, cell0)]
    second = [_run(capsys, conf, *argv) for argv in SEQUENCE]
    assert second[2][1] == first[2][1]
    assert second[4][1] == table
    assert _run(capsys, conf, "cell_v2", "discover_hosts")[:2] == (0, "")
    assert [helpers.snapshot(url) for url in (api, cell, cell0)] == before


def _assert_one_line(result: tuple[int, str, str], *fragments: str) -> None:
    code, out, err = result
    assert (code, out) == (1, "")
    assert err.startswith("ERROR: ") and err.count("\n") == 1
    for fragment in fragments:
        assert fragment in err


def test_missing_database_is_named(
    server: str, prefix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api = make_url(server).set(database=f"{prefix}_api").render_as_string(hide_password=False)
    conf = _write_conf(tmp_path / "saphira.conf", api, api)
    _assert_one_line(_run(capsys, conf, "api_db", "sync"), f"{prefix}_api", "****")


def test_wrong_password_and_unreachable_server(
    server: str, prefix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = make_url(server).set(password="not-the-password", database=f"{prefix}_api")
    conf = _write_conf(tmp_path / "a.conf", wrong.render_as_string(hide_password=False), "")
    code, out, err = _run(capsys, conf, "api_db", "sync")
    _assert_one_line((code, out, err), "****")
    assert "not-the-password" not in err
    # Port 1 on loopback refuses at once: nothing listens there.
    gone = wrong.set(port=1).render_as_string(hide_password=False)
    conf = _write_conf(tmp_path / "b.conf", gone, "")
    _assert_one_line(_run(capsys, conf, "api_db", "sync"), "127.0.0.1:1")
