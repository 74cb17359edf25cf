"""The join on this machine, as root: a veth as the provider NIC, real OVS, the real
supervisor, visudo and ``--check``; the controller is a stub on 127.0.0.1
(``controller_stub``). The compute and network agents are stand-ins (a process
that sleeps): the real agents need a real controller; the join starts whatever
command it is given through the supervisor, which is what is tested here.
"""

from __future__ import annotations

import io
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira.devtools.controller_stub import Stub, serving
from saphira.join import services as svc
from saphira.join import supervisor
from saphira.join.cli import main

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("ovs")]
TIMEOUT = 30.0


def _sh(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True)


@pytest.fixture
def provider_nic() -> Iterator[tuple[str, str]]:
    """A veth pair (the NIC and its peer) and the name of a bridge; all removed after."""
    assert os.geteuid() == 0, "the join test runs as root (it makes links and OVS bridges)"
    tag = f"{os.getpid() % 100000:05d}"
    nic, peer, bridge = f"jn{tag}a", f"jn{tag}b", f"br-jn{tag}"
    _sh("ip", "link", "add", nic, "type", "veth", "peer", "name", peer)
    try:
        yield nic, bridge
    finally:
        subprocess.run(["ovs-vsctl", "--if-exists", "del-br", bridge], check=False)
        subprocess.run(["ip", "link", "del", nic], check=False, capture_output=True)


@pytest.fixture
def standin(tmp_path: Path) -> Path:
    path = tmp_path / "standin"
    # No exec: the process keeps the command line the join gave it (--check reads it).
    path.write_text("#!/bin/sh\nwhile :; do sleep 1; done\n")
    path.chmod(0o755)
    return path


def _join(root: Path, *argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(["--root", str(root), *argv], stdin=io.StringIO(""), out=out)
    return code, out.getvalue()


def _wait_running(state: Path, name: str) -> int:
    deadline = time.monotonic() + TIMEOUT
    while (pid := svc.running(state, name)) is None:
        assert time.monotonic() < deadline, f"{name} never ran"
        time.sleep(0.1)
    return pid


def test_join_check_break_and_refuse(
    tmp_path: Path, provider_nic: tuple[str, str], standin: Path
) -> None:
    nic, bridge = provider_nic
    root, host = tmp_path / "root", socket.gethostname()
    state = root / "var/lib/saphira"
    with serving(Stub(host, {"physnet1": bridge})) as stub:
        flags = [
            "--non-interactive", "--controller", "127.0.0.1", "--provider-nic", nic,
            "--bridge", bridge, "--identity-url", f"{stub.url}/v3", "--nova-password", "n",
            "--placement-password", "p", "--neutron-password", "q", "--host", host,
            "--service-user", "root", "--wait", str(TIMEOUT),
            "--program", f"saphira-compute={standin}",
            "--program", f"saphira-network-agent={standin}",
        ]  # fmt: skip
        try:
            code, out = _join(root, *flags)
            assert code == 0, out
            assert f"The controller sees {host}" in out
            ports = subprocess.run(["ovs-vsctl", "list-ports", bridge], capture_output=True,
                                   text=True, check=True).stdout.split()  # fmt: skip
            assert ports == [nic]
            first = _wait_running(state, svc.COMPUTE)

            # A second join changes nothing: same bytes, same mtimes, same processes.
            conf = root / "etc/saphira"
            before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in conf.iterdir()}
            code, out = _join(root, *flags)
            assert code == 0, out
            assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in conf.iterdir()} == before
            assert svc.running(state, svc.COMPUTE) == first

            # A dead agent is started again by the supervisor.
            os.kill(first, 9)
            deadline = time.monotonic() + TIMEOUT
            while svc.running(state, svc.COMPUTE) in (None, first):
                assert time.monotonic() < deadline, "the supervisor did not restart it"
                time.sleep(0.1)

            code, out = _join(root, "--check")
            assert code == 0, out
            assert "PASS network agent's command line: --config-file" in out, out

            _sh("ovs-vsctl", "del-port", bridge, nic)
            code, out = _join(root, "--check")
            assert code == 1 and f"FAIL bridge: {bridge} has no ports, not {nic}" in out, out

            stub.mappings = {}
            code, out = _join(root, "--check")
            assert "FAIL live bridge mapping" in out and "Empty bridge mappings" in out, out

            sudoers = root / "etc/sudoers.d/saphira-compute"
            sudoers.write_text("saphira ALL = (root NOPASSWD\n")
            code, out = _join(root, "--check")
            assert "FAIL sudoers: visudo -c" in out and "FailedToDropPrivileges" in out, out

            supervisor.stop_running(state)
            code, out = _join(root, "--check")
            assert "FAIL saphira-compute: not running" in out, out
            assert "FAIL saphira-network-agent: not running" in out, out
        finally:
            supervisor.stop_running(state)


def test_a_dead_controller_stops_the_join_before_anything_is_written(
    tmp_path: Path, provider_nic: tuple[str, str]
) -> None:
    nic, bridge = provider_nic
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/v3"
    code, out = _join(
        tmp_path, "--non-interactive", "--controller", "127.0.0.1", "--provider-nic", nic,
        "--bridge", bridge, "--identity-url", dead, "--nova-password", "n",
        "--placement-password", "p", "--neutron-password", "q", "--host", "x",
    )  # fmt: skip
    assert code == 1 and "answered 000" in out and "nothing was written" in out, out
    assert list(tmp_path.iterdir()) == []
    assert subprocess.run(["ovs-vsctl", "br-exists", bridge], check=False).returncode == 2
