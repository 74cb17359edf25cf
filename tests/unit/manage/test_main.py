"""saphira-manage: every failure one line on stderr, every command idempotent."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from saphira.db import cells
from saphira.manage import main as manage_main
from saphira.manage.main import build_parser, main
from tests.unit.db import helpers
from tests.unit.manage.conftest import Run

GUIDE_SEQUENCE = (
    ("api_db", "sync"),
    ("cell_v2", "map_cell0"),
    ("cell_v2", "create_cell", "--name=cell1", "--verbose"),
    ("db", "sync"),
    ("cell_v2", "list_cells"),
    ("cell_v2", "discover_hosts", "--verbose"),
    ("cell_v2", "list_hosts"),
    ("api_db", "version"),
    ("db", "version"),
)


def _state(tmp_path: Path) -> dict[str, Any]:
    state = tmp_path / "state"
    return {name.name: helpers.snapshot(f"sqlite:///{name}") for name in state.glob("*.sqlite")}


def test_every_guide_command_twice_changes_nothing(run: Run, tmp_path: Path) -> None:
    first = [run(*argv) for argv in GUIDE_SEQUENCE]
    assert all(code == 0 and err == "" for code, _, err in first), first
    helpers.register_compute(f"sqlite:///{tmp_path}/state/nova.sqlite", "compute1")
    assert run("cell_v2", "discover_hosts")[0] == 0
    before = _state(tmp_path)
    assert set(before) == {"nova_api.sqlite", "nova.sqlite", "nova_cell0.sqlite"}
    assert len(before["nova_api.sqlite"]["host_mappings"]) == 1
    second = [run(*argv) for argv in GUIDE_SEQUENCE]
    assert [code for code, _, _ in second] == [0] * len(GUIDE_SEQUENCE)
    assert second[2][1] == first[2][1]  # create_cell prints the same UUID
    assert second[4][1] == first[4][1]  # list_cells: the same table
    assert _state(tmp_path) == before


def _one_error_line(code: int, out: str, err: str) -> str:
    assert code == 1
    assert out == ""
    assert err.startswith("ERROR: ")
    assert err.count("\n") == 1
    assert "Traceback" not in err
    return err


def test_db_sync_before_map_cell0_warns_as_nova_does(run: Run) -> None:
    run("api_db", "sync")
    assert run("db", "sync") == (0, "WARNING: cell0 mapping not found - not syncing cell0.\n", "")
    assert run("db", "sync", "--local_cell") == (0, "", "")


def test_command_before_api_db_sync(run: Run) -> None:
    err = _one_error_line(*run("cell_v2", "list_cells"))
    assert "run 'saphira-manage api_db sync' first" in err


def test_unreachable_database_is_one_masked_line(tmp_path: Path, run: Run) -> None:
    config = tmp_path / "pg.conf"
    # Port 1 on loopback refuses at once: nothing listens there.
    config.write_text(
        "[api_database]\nconnection = postgresql+psycopg://nova:S3CRET@127.0.0.1:1/nova_api\n"
        "[database]\nconnect_timeout = 2\n"
    )
    err = _one_error_line(*run("api_db", "sync", config=config))
    assert "S3CRET" not in err
    assert "postgresql+psycopg://nova:****@127.0.0.1:1/nova_api" in err


@pytest.mark.parametrize(
    ("section", "line", "fragment"),
    [
        ("database", "connection = nosuchdriver://x/y", "unsupported database URL"),
        ("database", "connection = not a url", "invalid database URL"),
        ("database", "connect_timeout = soon", "[database] connect_timeout"),
    ],
)
def test_bad_configuration_is_one_line(
    tmp_path: Path, run: Run, section: str, line: str, fragment: str
) -> None:
    config = tmp_path / "bad.conf"
    config.write_text(f"[DEFAULT]\nstate_path = {tmp_path}/state\n[{section}]\n{line}\n")
    assert fragment in _one_error_line(*run("db", "sync", "--local_cell", config=config))


def test_missing_config_file_and_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for option in ("--config-file", "--config-dir"):
        code = main([option, str(tmp_path / "absent"), "api_db", "version"])
        out, err = capsys.readouterr()
        assert "absent" in _one_error_line(code, out, err)


def test_unwritable_state_path_is_one_line(tmp_path: Path, run: Run) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    config = tmp_path / "ro.conf"
    config.write_text(f"[DEFAULT]\nstate_path = {blocker}/state\n")
    assert str(blocker) in _one_error_line(*run("api_db", "sync", config=config))


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in ([], ["cell_v2"], ["cell_v2", "delete_cell"], ["nope"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
    capsys.readouterr()


def test_parser_is_built_from_each_modules_register(monkeypatch: pytest.MonkeyPatch) -> None:
    # A command module that is not written yet is left out, not an error.
    monkeypatch.setattr(
        manage_main, "_MODULES", ("saphira.manage.db", "saphira.manage.no_such_module")
    )
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert sorted(actions[0].choices) == ["api_db", "db"]


def test_library_and_command_agree_on_urls(run: Run, tmp_path: Path) -> None:
    run("api_db", "sync")
    run("cell_v2", "map_cell0")
    out = run("cell_v2", "list_cells")[1]
    assert cells.cell0_url(f"sqlite:///{tmp_path}/state/nova.sqlite") in out
