"""The privileged helper (oslo.privsep daemon), for real: a separate root process
with only its capabilities, which runs its entry points and refuses anything else."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from saphira.privsep import context, dnsmasq, files, links, netns, nft, ovs, ovs_watch
from saphira.privsep.validate import InvalidArgument
from tests.polling import wait_for
from tests.unprivileged import reachable

pytestmark = [pytest.mark.integration]

MASK = f"{sum(1 << cap for cap in context.CAPABILITIES):016x}"


def status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {key: value.strip() for key, _, value in (line.partition(":") for line in lines)}


def remote(name: str, *args: Any) -> Any:
    """Ask the helper's channel for ``name`` directly, as a compromised service could."""
    context.ensure_started()
    channel = context.default.channel
    assert channel is not None
    return channel.remote_call(name, args, {}, 30)


def test_the_helper_is_a_separate_process_with_only_its_capabilities() -> None:
    helper = context.identity()
    assert helper["pid"] != os.getpid()
    assert helper["Uid"] == "0"
    assert (helper["CapEff"], helper["CapPrm"], helper["CapInh"]) == (MASK, MASK, "0" * 16)
    assert helper["CapBnd"] == MASK, "commands the helper runs could regain every capability"


@pytest.mark.xdist_group("ovs")
def test_commands_the_helper_runs_get_no_more_than_its_capabilities() -> None:
    helper = int(context.identity()["pid"])
    ovs_watch.changes(-1, 1)  # starts the helper's ovsdb-client monitor

    def monitor() -> int | None:
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                if status(int(proc.name)).get("PPid") == str(helper):
                    return int(proc.name)
            except OSError:
                continue
        return None

    child = wait_for("the helper's ovsdb-client", monitor, timeout=10)
    assert status(child)["Uid"].split()[0] == "0"
    assert status(child)["CapEff"] == MASK
    assert status(child)["CapBnd"] == MASK


@pytest.mark.parametrize(
    "name",
    [
        "saphira.privsep.runner.run",  # the helper's own command runner
        "subprocess.check_call",
        "os.system",
        "saphira.privsep.dnsmasq.checked_argv",  # a helper function, not an entry point
        "saphira.privsep.context.helper_main",
        "x; rm -rf /",
        "../../etc/passwd",
    ],
)
def test_the_helper_refuses_what_is_not_an_entry_point(name: str, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with pytest.raises((NameError, ImportError, ValueError)):
        remote(name, ["touch", str(marker)])
    assert not marker.exists()
    assert context.identity()["pid"], "the helper keeps serving after a refusal"


def test_entry_points_refuse_hostile_arguments() -> None:
    for call in (
        lambda: netns.create("x; rm -rf /"),
        lambda: netns.create("../../etc"),
        lambda: links.set_up("--help"),
        lambda: links.add_address("lo", "127.0.0.9/8 dev lo label x"),
        lambda: nft.apply("flush ruleset\n"),
        lambda: ovs.systemctl_start("ssh.service"),
        lambda: ovs.dump_flows("br-int", "--strict"),
        lambda: dnsmasq.kill(os.getpid()),  # not a dnsmasq
        lambda: dnsmasq.spawn(["dnsmasq", "--conf-file=/etc/shadow"], namespace="qdhcp-x"),
        lambda: files.console_tail("/etc/shadow", 100),
        lambda: files.console_tail("/var/tmp/../../etc/console.log", 100),
        lambda: files.console_tail("/var/tmp/console.log", 10**9),
    ):
        with pytest.raises(InvalidArgument):
            call()
    # Not the host's whole list before and after: tests in other workers make and
    # remove namespaces meanwhile (the full run saw a bed's appear).
    assert not {"x; rm -rf /", "../../etc", "etc", "x", "qdhcp-x"} & set(netns.names())


def test_the_refusal_holds_when_the_entry_point_is_called_by_name() -> None:
    """A caller skipping the module's wrapper meets the same checks in the helper."""
    with pytest.raises(InvalidArgument):
        remote("saphira.privsep.netns.create", "x; rm -rf /")


def test_a_service_user_without_the_sudoers_rule_gets_a_clear_error() -> None:
    """Not root, no rule: ``sudo -n`` refuses, and the entry point fails as a PrivsepError."""
    user = reachable()
    code = (
        "from saphira.privsep import netns\n"
        "from saphira.privsep.errors import PrivsepError\n"
        "try:\n    netns.names()\nexcept PrivsepError as error:\n    print('refused:', error)\n"
    )
    env = {"PATH": os.environ["PATH"]}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env, cwd="/",
        user=user.uid, group=user.gid, extra_groups=list(user.groups),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused: privileged helper failed"), done.stdout + done.stderr
    assert "sudoers" in done.stdout


def test_a_console_log_written_by_root_is_read_through_the_helper(tmp_path: Path) -> None:
    log = tmp_path / "console.log"
    log.write_bytes(b"boot\n" * 100 + b"SAPHIRA-GUEST: booted\n")
    log.chmod(0o600)
    assert files.console_tail(str(log), 22) == b"SAPHIRA-GUEST: booted\n"
    assert files.console_tail(str(tmp_path / "nothing" / "console.log"), 10) == b""


def test_the_console_reader_follows_no_link(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("root's secret\n")
    (tmp_path / "console.log").symlink_to(secret)
    with pytest.raises(OSError):
        files.console_tail(str(tmp_path / "console.log"), 100)
