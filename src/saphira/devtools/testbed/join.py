"""Joining a node to the controller: the join tool, run inside the node.

``saphira-openstack-setup-compute`` does the join (writes the node's Saphira
configuration, starts its agents); the bed never writes that configuration
itself. ``join_command`` is how the bed runs it: non-interactive, inside the
node's namespaces, with the controller's management address, the node's
provider NIC and the node's own directories.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from saphira.devtools.testbed.layout import PROVIDER_NIC
from saphira.devtools.testbed.node import Node

TOOL = "saphira-openstack-setup-compute"


def tool_path() -> str | None:
    """The join tool beside this interpreter (the venv's), else on PATH."""
    beside = Path(sys.executable).parent / TOOL
    return str(beside) if beside.exists() else shutil.which(TOOL)


@dataclass(frozen=True)
class Join:
    node: Node
    controller: str

    def arguments(self) -> list[str]:
        return [
            "--non-interactive", "--controller", self.controller,
            "--provider-nic", PROVIDER_NIC,
            "--config-dir", str(self.node.config_dir), "--state-dir", str(self.node.state_dir),
        ]  # fmt: skip

    def command(self, tool: str = TOOL) -> list[str]:
        return self.node.enter([tool, *self.arguments()])
