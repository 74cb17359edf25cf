"""tests/cli.py: a forked command answers as the `openstack` script does."""

from __future__ import annotations

import socket
import subprocess

import pytest

from tests import cli
from tests.functional.process import clean_env


@pytest.mark.parametrize("argv", [["--version"], ["no-such-command"], ["server", "list"]])
def test_a_forked_command_answers_as_the_script(argv: list[str]) -> None:
    env = clean_env(OS_AUTH_TYPE="none", OS_ENDPOINT="http://127.0.0.1:9")  # nothing listens
    forked = cli.run(argv, env, timeout=60)
    whole = cli.run(argv, env, timeout=60, binary=True)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        whole.returncode, whole.stdout, whole.stderr,
    )  # fmt: skip


def test_a_command_past_its_timeout_is_killed_and_the_next_one_runs() -> None:
    with socket.socket() as silent:  # accepts the connection, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        env = clean_env(
            OS_AUTH_TYPE="none", OS_ENDPOINT=f"http://127.0.0.1:{silent.getsockname()[1]}"
        )
        with pytest.raises(subprocess.TimeoutExpired):
            cli.run(["server", "list"], env, timeout=2)
    assert cli.run(["--version"], clean_env(), timeout=60).stdout.startswith("openstack ")
