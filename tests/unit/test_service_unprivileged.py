"""`saphira up --user`: only root can hand the services to another user."""

from __future__ import annotations

import os

import pytest

from saphira.cmd import up as cmd_up
from saphira.service import unprivileged


def test_a_normal_user_cannot_change_to_another(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(unprivileged.DropError, match="only root can change to another user"):
        unprivileged.become("saphira", "/nonexistent")


def test_the_command_line_takes_a_user() -> None:
    args = cmd_up._parser().parse_args(["up", "--user", "saphira"])
    assert args.user == "saphira"
