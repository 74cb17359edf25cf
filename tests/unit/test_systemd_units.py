"""The systemd units we ship start our installed entry points after libvirt, as the
saphira user and hardened; the sudoers rule names the privileged helper alone."""

from __future__ import annotations

import configparser
import os
import shlex
import shutil
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from oslo_privsep import capabilities as caps

from saphira.cmd import up as cmd_up
from saphira.privsep import context

ROOT = Path(__file__).resolve().parents[2]
UNITS = {
    "saphira.service": "saphira.cmd.up:main",
    "saphira-compute.service": "saphira.cmd.compute:main",
    "saphira-api.service": "saphira.cmd.api:main",
    "saphira-network-agent.service": "saphira.cmd.network_agent:main",
    "saphira-dashboard.service": "saphira.cmd.dashboard:main",
}
LIBVIRT_USERS = ("saphira.service", "saphira-compute.service")
SUDO_USERS = ("saphira-network-agent.service",)  # the helper through etc/sudoers.d


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


@pytest.mark.parametrize("name", LIBVIRT_USERS)
def test_units_come_after_both_libvirt_layouts(name: str) -> None:
    unit = _unit(name)
    for key in ("After", "Wants"):
        assert {"libvirtd.service", "virtqemud.service"} <= set(unit["Unit"][key].split())
    assert unit["Install"]["WantedBy"] == "multi-user.target"


def test_saphira_unit_arguments_are_what_saphira_up_accepts() -> None:
    args = cmd_up._parser().parse_args(_exec_start("saphira.service")[1:])
    assert (args.command, args.state_dir, args.user) == ("up", "/var/lib/saphira", "saphira")


@pytest.mark.parametrize("name", [name for name in UNITS if name != "saphira.service"])
def test_per_service_units_read_one_config_file(name: str) -> None:
    assert _exec_start(name)[1:] == ["--config-file", "/etc/saphira/saphira.conf"]
    service = _unit(name)["Service"]
    assert (service["User"], service["Group"]) == ("saphira", "saphira")
    assert service["Type"] == "simple"
    assert service["KillSignal"] == "SIGTERM"  # what service.process.run stops on


@pytest.mark.parametrize("name", UNITS)
def test_no_unit_gains_privileges_or_keeps_more_than_the_helper_needs(name: str) -> None:
    """Only a unit that starts the helper through sudo (setuid) may gain privileges."""
    service = _unit(name)["Service"]
    assert service["NoNewPrivileges"] == ("no" if name in SUDO_USERS else "yes")
    assert service["UMask"] == "0077"
    kept = set(service["CapabilityBoundingSet"].split())
    helper = {caps.CAPS_BYVALUE[cap] for cap in context.CAPABILITIES}
    assert kept <= helper | {"CAP_CHOWN", "CAP_FOWNER", "CAP_SETPCAP", "CAP_AUDIT_WRITE"}


@pytest.mark.parametrize("name", ["saphira.service", *SUDO_USERS])
def test_the_helpers_bounding_set_leaves_it_its_capabilities(name: str) -> None:
    kept = set(_unit(name)["Service"]["CapabilityBoundingSet"].split())
    assert {caps.CAPS_BYVALUE[cap] for cap in context.CAPABILITIES} <= kept


@pytest.mark.parametrize("name", ["saphira.service", *SUDO_USERS])
def test_units_with_the_helper_keep_the_hosts_mount_namespace(name: str) -> None:
    """The helper's ``ip netns add`` must mount under the host's /run/netns."""
    service = _unit(name)["Service"]
    for key in ("PrivateTmp", "ProtectSystem", "ProtectHome", "PrivateDevices", "ReadOnlyPaths"):
        assert key not in service


def test_the_network_agent_starts_after_open_vswitch() -> None:
    assert "openvswitch-switch.service" in _unit("saphira-network-agent.service")["Unit"]["After"]


@pytest.mark.parametrize(
    "name", ["saphira-compute.service", "saphira-api.service", "saphira-dashboard.service"]
)
def test_units_without_root_work_run_in_a_tight_sandbox(name: str) -> None:
    service = _unit(name)["Service"]
    assert (service["User"], service["Group"]) == ("saphira", "saphira")
    assert service["CapabilityBoundingSet"] == ""
    assert service["ProtectSystem"] == "strict"
    assert (service["StateDirectory"], service["StateDirectoryMode"]) == ("saphira", "0711")
    for key in ("PrivateTmp", "ProtectHome", "RestrictSUIDSGID", "RestrictNamespaces"):
        assert service[key] == "yes"


def test_compute_joins_the_groups_that_open_libvirt() -> None:
    service = _unit("saphira-compute.service")["Service"]
    assert set(service["SupplementaryGroups"].split()) == {"libvirt", "kvm"}


SUDOERS = ROOT / "etc" / "sudoers.d" / "saphira"


def test_the_sudoers_rule_passes_visudo() -> None:
    visudo = shutil.which("visudo") or "/usr/sbin/visudo"
    if not os.path.exists(visudo):
        pytest.fail("visudo is not installed (tools/dev setup installs sudo)")
    result = subprocess.run([visudo, "-c", "-f", str(SUDOERS)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_sudoers_rule_names_only_the_helper_the_services_run() -> None:
    rules = [line for line in SUDOERS.read_text().splitlines() if line.startswith("saphira ")]
    assert len(rules) == 1
    who, command = rules[0].split(" NOPASSWD: ")
    assert who == "saphira ALL = (root)"
    wanted = context.helper_argv("/*", root=False)
    assert wanted[:2] == ["sudo", "-n"]
    assert shlex.split(command) == ["/usr/bin/python3", *wanted[3:]]
