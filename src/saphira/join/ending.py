"""The join's ending, as the guide tells it, made a check.

The agents are reported active here; then the note that a locally running
service is not yet a schedulable host, a bounded wait until the controller
sees the compute service, the hypervisor, the placement provider and the
agents with this host's bridge mapping, and the controller command that
admits the host into a cell.
"""

from __future__ import annotations

from typing import TextIO

from saphira.join.answers import Answers
from saphira.join.controller import Controller, Credentials, wait_admitted
from saphira.join.machine import Machine

DISCOVER = "saphira-manage cell_v2 discover_hosts --verbose"
NOTE = (
    "A locally running service is not yet a schedulable OpenStack host: "
    "the final proof comes from the controller."
)
ADMIT = (
    f"On the controller, admit this host into a cell: {DISCOVER}\n"
    "(where the controller sets [scheduler] discover_hosts_in_cells_interval, "
    "periodic discovery admits it by itself)"
)


def credentials(answers: Answers) -> Credentials:
    return Credentials(answers.identity_url, answers.region, "nova", answers.nova_password)


def finish(answers: Answers, machine: Machine, wait: float, out: TextIO) -> int:
    out.write(f"{NOTE}\n")
    if wait <= 0:
        out.write("Not waiting for the controller (--wait 0).\n" + ADMIT + "\n")
        return 0
    out.write(f"Waiting up to {wait:g} s for the controller to see {answers.host}...\n")
    out.flush()
    mapping = (answers.physnet, answers.bridge)

    admitted, gaps = wait_admitted(
        lambda: Controller(machine.transport, credentials(answers)).view(answers.host),
        mapping, wait,
    )  # fmt: skip
    if admitted:
        out.write(
            f"The controller sees {answers.host}: compute service up, hypervisor up, "
            f"placement provider present, agents alive with {answers.bridge_mapping}.\n"
        )
        out.write(ADMIT + "\n")
        return 0
    out.write(f"The controller does not see {answers.host} yet: {'; '.join(gaps)}\n")
    out.write("Run saphira-openstack-setup-compute --check for the cause.\n")
    out.write(ADMIT + "\n")
    return 1
