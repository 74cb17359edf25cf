"""The systemd units we ship start our installed entry points after libvirt."""

from __future__ import annotations

import configparser
import shlex
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from saphira.cmd import up as cmd_up

ROOT = Path(__file__).resolve().parents[2]
UNITS = {
    "saphira.service": "saphira.cmd.up:main",
    "saphira-compute.service": "saphira.cmd.compute:main",
}


class _CaseKept(configparser.ConfigParser):
    def optionxform(self, optionstr: str) -> str:
        return optionstr  # systemd's keys keep their case


def _unit(name: str) -> configparser.ConfigParser:
    parser = _CaseKept(interpolation=None)
    parser.read_string((ROOT / "etc" / "systemd" / name).read_text(encoding="utf-8"))
    return parser


def _exec_start(name: str) -> list[str]:
    return shlex.split(_unit(name)["Service"]["ExecStart"])


@pytest.mark.parametrize(("name", "target"), UNITS.items())
def test_exec_start_is_the_installed_entry_point(name: str, target: str) -> None:
    program = Path(_exec_start(name)[0])
    assert program.is_absolute()
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts[program.name] == target
    installed = metadata.entry_points(group="console_scripts", name=program.name)
    assert [entry.value for entry in installed] == [target]


@pytest.mark.parametrize("name", UNITS)
def test_units_come_after_both_libvirt_layouts(name: str) -> None:
    unit = _unit(name)
    for key in ("After", "Wants"):
        assert {"libvirtd.service", "virtqemud.service"} <= set(unit["Unit"][key].split())
    assert unit["Install"]["WantedBy"] == "multi-user.target"


def test_saphira_unit_arguments_are_what_saphira_up_accepts() -> None:
    args = cmd_up._parser().parse_args(_exec_start("saphira.service")[1:])
    assert (args.command, args.state_dir) == ("up", "/var/lib/saphira")


def test_compute_unit_reads_one_config_file() -> None:
    assert _exec_start("saphira-compute.service")[1:] == [
        "--config-file",
        "/etc/saphira/saphira.conf",
    ]
