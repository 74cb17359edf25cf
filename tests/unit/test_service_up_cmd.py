"""`saphira up` configuration layering and its command line (no server started)."""

from __future__ import annotations

from pathlib import Path

import pytest

from saphira.cmd import up as cmd_up
from saphira.service import up as service_up


def test_layers_state_conf_then_files_then_flags(tmp_path: Path) -> None:
    (tmp_path / "saphira.conf").write_text("[DEFAULT]\nregion_name = FromState\nport_offset = 1\n")
    first = tmp_path / "a.conf"
    first.write_text("[DEFAULT]\nport_offset = 2\nmy_ip = 10.0.0.2\n")
    second = tmp_path / "b.conf"
    second.write_text("[DEFAULT]\nport_offset = 3\n")
    conf = service_up.load_conf(str(tmp_path), [str(first), str(second)])
    assert conf.region_name == "FromState"
    assert conf.my_ip == "10.0.0.2"
    assert conf.port_offset == 3  # later files win
    assert conf.state_path == str(tmp_path)
    flagged = service_up.load_conf(
        str(tmp_path), [str(first)], port_offset=40, bind_host="127.0.0.1"
    )
    assert flagged.port_offset == 40
    assert flagged.bind_host == "127.0.0.1"


def test_state_dir_from_the_operators_state_path(tmp_path: Path) -> None:
    nova = tmp_path / "nova.conf"
    nova.write_text(f"[DEFAULT]\nstate_path = {tmp_path}/srv\n")
    assert service_up.choose_state_dir(None, [str(nova)]) == f"{tmp_path}/srv"
    assert service_up.choose_state_dir(str(tmp_path / "x"), [str(nova)]) == str(tmp_path / "x")


def test_bad_value_is_one_line_and_exit_2_before_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.conf"
    bad.write_text("[identity]\nport = eighty\n")
    state = tmp_path / "state"
    code = cmd_up.main(["up", "--state-dir", str(state), "--config-file", str(bad)])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert str(bad) in err and "[identity] port" in err
    assert not state.exists()  # nothing started, nothing written


def test_bad_flag_value_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cmd_up.main(["up", "--state-dir", str(tmp_path / "s"), "--port-offset", "-5"])
    assert code == 2
    assert "port_offset" in capsys.readouterr().err


def test_no_command_prints_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert cmd_up.main([]) == 2
    assert "up" in capsys.readouterr().err
