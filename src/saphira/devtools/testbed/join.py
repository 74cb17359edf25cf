"""Joining a node to the controller: the join tool, run inside the node.

``saphira-openstack-setup-compute`` does the join (writes the node's Saphira
configuration, starts its agents); the bed never writes that configuration
itself. ``Join.command`` is how the bed runs it: non-interactive, inside the
node's namespaces, with a join token from the controller (``saphira-manage
compute-token create``: the controller's addresses, credentials and
endpoints in one argument), the node's provider NIC, its name as the compute
host and the node's own directories.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from saphira.devtools.testbed.layout import PROVIDER_NIC
from saphira.devtools.testbed.node import Node

TOOL = "saphira-openstack-setup-compute"
TIMEOUT = 600.0  # the tool waits (bounded, 300 s by default) until the controller sees the node


def tool_path() -> str | None:
    """The join tool beside this interpreter (the venv's), else on PATH."""
    beside = Path(sys.executable).parent / TOOL
    return str(beside) if beside.exists() else shutil.which(TOOL)


@dataclass(frozen=True)
class Join:
    node: Node
    controller: str
    token: str = "<saphira-manage compute-token create>"

    def arguments(self) -> list[str]:
        return [
            "--non-interactive", "--token", self.token, "--controller", self.controller,
            "--provider-nic", PROVIDER_NIC, "--host", self.node.name,
            "--config-dir", str(self.node.config_dir), "--state-dir", str(self.node.state_dir),
        ]  # fmt: skip

    def command(self, tool: str = TOOL) -> list[str]:
        return self.node.enter([tool, *self.arguments()])
