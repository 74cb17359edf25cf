"""`saphira up --user`: only root can hand the services to another user, and what
needs root (the helper, libvirt's daemons) happens before the drop."""

from __future__ import annotations

import os

import pytest
from oslo_config import cfg

from saphira import conf as saphira_conf
from saphira.cmd import up as cmd_up
from saphira.privsep import context as privileged
from saphira.service import unprivileged
from saphira.virt import loader


def _conf(driver: str) -> cfg.ConfigOpts:
    return saphira_conf.load([], overrides={"DEFAULT": {"compute_driver": driver}})


def test_a_normal_user_cannot_change_to_another(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(unprivileged.DropError, match="only root can change to another user"):
        unprivileged.become("saphira", _conf(loader.FAKE))


def test_the_command_line_takes_a_user() -> None:
    args = cmd_up._parser().parse_args(["up", "--user", "saphira"])
    assert args.user == "saphira"


def test_no_drop_without_the_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(privileged, "unavailable_reason", lambda: "it broke")
    with pytest.raises(unprivileged.DropError, match="it broke"):
        unprivileged.root_work(_conf(loader.FAKE), "saphira")


def test_auto_is_decided_as_root_and_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deciding starts libvirt's daemons where needed, which the helper could not."""
    decided: list[str] = []

    def resolve(conf: cfg.ConfigOpts) -> tuple[str, str]:
        decided.append(str(conf.compute_driver))
        return loader.LIBVIRT, "virtqemud 9.0.0 at qemu:///system"

    monkeypatch.setattr(privileged, "unavailable_reason", lambda: None)
    monkeypatch.setattr(loader, "resolve_driver_name", resolve)
    conf = _conf(loader.AUTO)
    unprivileged.root_work(conf, "saphira")
    assert decided == [loader.AUTO]
    assert conf.compute_driver == loader.LIBVIRT


def test_the_fake_driver_needs_no_root_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(privileged, "unavailable_reason", lambda: None)
    monkeypatch.setattr(loader, "resolve_driver_name", lambda conf: pytest.fail("resolved"))
    unprivileged.root_work(_conf(loader.FAKE), "saphira")


def test_root_drops_to_saphira_unless_told_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert cmd_up.service_user(None) == "saphira"
    assert cmd_up.service_user("cloud") == "cloud"
    assert cmd_up.service_user("root") is None


def test_a_normal_user_runs_the_services_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert cmd_up.service_user(None) is None
