"""The narrow sudoers rule for the privileged helper, checked by ``visudo -c -f``.

The rule is the project's own (etc/sudoers.d/saphira): one command, the
helper of Saphira's privsep context run by this installation's interpreter,
with only the socket path free; it is built from the very command line the
agents run (``saphira.privsep.context.helper_argv``), so the two cannot
drift. The text is validated in a temporary file before it is installed, and
an installed file is validated again by ``--check``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from saphira.join.runner import Runner
from saphira.privsep.context import helper_argv

PATH = Path("/etc/sudoers.d/saphira-compute")
MODE = 0o440


def rule(user: str = "saphira") -> str:
    command = helper_argv("/*", root=False)[2:]  # without "sudo -n"
    return (
        "# Written by saphira-openstack-setup-compute: the privileged helper only.\n"
        "# Never widen this to unrestricted sudo (see etc/sudoers.d/saphira).\n"
        f"Defaults:{user} !requiretty\n"
        f"{user} ALL = (root) NOPASSWD: {' '.join(command)}\n"
    )


def check_file(runner: Runner, path: Path) -> str | None:
    """visudo's complaint about path, or None when it parses."""
    done = runner.run(["visudo", "-c", "-f", str(path)])
    return None if done.ok else (done.output or f"visudo -c exited with {done.returncode}")


def check_text(runner: Runner, text: str) -> str | None:
    """visudo's complaint about text (written to a temporary file first)."""
    with tempfile.NamedTemporaryFile("w", prefix="saphira-sudoers-", suffix=".tmp") as tmp:
        tmp.write(text)
        tmp.flush()
        return check_file(runner, Path(tmp.name))
