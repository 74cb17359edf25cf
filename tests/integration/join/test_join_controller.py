"""A node joins a real controller with a token: ``saphira-api``, ``-conductor`` and
``-scheduler`` as their own processes over RabbitMQ and PostgreSQL/MariaDB (the
deploy tests' ``Deployment``), ``saphira-manage compute-token create`` on its
configuration, then ``saphira-openstack-setup-compute --token`` into a temporary
root: the real ``saphira-compute`` (fake driver) is started by the supervisor and
the controller sees its service, hypervisor and placement provider. The network
agent is a stand-in (a process that sleeps; ``saphira-network-agent`` is not on
this branch yet), so the join's bounded wait must end naming exactly that gap.
A second redemption of the token is refused and writes nothing.
"""

from __future__ import annotations

import io
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from saphira.join import supervisor
from saphira.join.cli import main
from saphira.manage.main import main as manage
from tests.integration.deploy.conftest import databases, deployment, rabbit_vhost
from tests.integration.deploy.deployment import Deployment
from tests.integration.join.test_join_node import provider_nic, standin

__all__ = ["databases", "deployment", "provider_nic", "rabbit_vhost", "standin"]
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("ovs")]


# MariaDB here; the node of tests/integration/deploy/test_node.py and the test bed run on PostgreSQL
@pytest.mark.parametrize("databases", ["mariadb"], indirect=True)
def test_a_node_joins_a_controller_with_a_token(
    deployment: Callable[..., Deployment],
    provider_nic: tuple[str, str],
    standin: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The node reports every 10 s (the default): the controller's service_down_time
    # must exceed that, as in any deployment (the deploy tests' 4 s suits 1 s reports).
    deploy = deployment({"DEFAULT": {"service_down_time": 30}})
    for label in ("api", "conductor", "scheduler"):
        deploy.start(label, label)
    conf_files = deploy.files()
    assert manage([*conf_files, "compute-token", "create", "--address", "127.0.0.1"]) == 0
    token = capsys.readouterr().out.strip()
    nic, bridge = provider_nic
    root, host = tmp_path / "root", f"join-{socket.gethostname()}"[:60]
    argv = [
        "--root", str(root), "--non-interactive", "--token", token, "--provider-nic", nic,
        "--bridge", bridge, "--host", host, "--service-user", "root", "--wait", "20",
        "--compute-driver", "fake.FakeDriver",
        "--program", f"saphira-network-agent={standin}",
    ]  # fmt: skip
    out = io.StringIO()
    try:
        code = main(argv, stdin=io.StringIO(""), out=out)
        text = out.getvalue()
        assert code == 1, text
        assert "saphira-compute (compute agent): active" in text, text
        gaps = text.split(f"The controller does not see {host} yet: ", 1)[1].splitlines()[0]
        assert gaps == "no network agent of this host is alive", text + deploy.logs()
        assert "saphira-manage cell_v2 discover_hosts --verbose" in text
        assert deploy.discover_hosts() == [host]

        before = sorted(p for p in root.rglob("*") if p.is_file())
        again = io.StringIO()
        assert main(argv, stdin=io.StringIO(""), out=again) == 1
        assert "refused the join token: 401" in again.getvalue(), again.getvalue()
        assert sorted(p for p in root.rglob("*") if p.is_file()) == before
    finally:
        supervisor.stop_running(root / "var/lib/saphira")
