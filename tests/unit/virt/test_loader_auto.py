"""``compute_driver``: an explicit name is kept, ``auto`` asks the host (daemons faked)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from oslo_config import cfg

from saphira import conf as saphira_conf
from saphira.exception import ConfigError
from saphira.virt import loader
from saphira.virt.fake import FakeDriver
from saphira.virt.libvirt import daemons
from saphira.virt.libvirt.daemons import DaemonReport
from saphira.virt.libvirt.machine import DaemonError


def _conf(tmp_path: Path, **default: object) -> cfg.ConfigOpts:
    values = {"host": "cmp1", "state_path": str(tmp_path), **default}
    return saphira_conf.load(overrides={"DEFAULT": values})


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """libvirt installed; ensure_running succeeds and records the URI it was given."""
    uris: list[str] = []

    def ensure_running(uri: str) -> DaemonReport:
        uris.append(uri)
        return DaemonReport(uri, daemon="libvirtd", version="9.0.0")

    monkeypatch.setattr(daemons, "unavailable_reason", lambda: None)
    monkeypatch.setattr(daemons, "ensure_running", ensure_running)
    return uris


def test_auto_is_the_default(tmp_path: Path) -> None:
    assert _conf(tmp_path).compute_driver == loader.AUTO


def test_explicit_names_are_kept_without_asking_the_host(
    tmp_path: Path, started: list[str]
) -> None:
    for name in ("fake.FakeDriver", "libvirt.LibvirtDriver"):
        chosen, why = loader.resolve_driver_name(_conf(tmp_path, compute_driver=name))
        assert (chosen, why) == (name, "set by [DEFAULT] compute_driver")
    assert started == []


def test_an_unknown_name_stays_a_config_error(tmp_path: Path) -> None:
    conf = _conf(tmp_path, compute_driver="vmware.VMwareVCDriver")
    with pytest.raises(ConfigError, match=r"unknown driver 'vmware\.VMwareVCDriver'.*auto"):
        loader.resolve_driver_name(conf)


def test_auto_picks_libvirt_where_it_runs(tmp_path: Path, started: list[str]) -> None:
    assert loader.resolve_driver_name(_conf(tmp_path)) == (
        "libvirt.LibvirtDriver",
        "libvirtd 9.0.0 at qemu:///system",
    )
    assert started == ["qemu:///system"]


def test_auto_uses_the_configured_uri(tmp_path: Path, started: list[str]) -> None:
    conf = _conf(tmp_path)
    conf.set_override("connection_uri", "qemu+tcp://cmp1/system", group="libvirt")
    assert loader.resolve_driver_name(conf)[1] == "libvirtd 9.0.0 at qemu+tcp://cmp1/system"
    assert started == ["qemu+tcp://cmp1/system"]


def test_auto_falls_back_to_fake_when_libvirt_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(daemons, "unavailable_reason", lambda: "libvirt-python is not installed")
    assert loader.resolve_driver_name(_conf(tmp_path)) == (
        "fake.FakeDriver",
        "libvirt-python is not installed",
    )


def test_auto_falls_back_to_fake_when_libvirt_cannot_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def ensure_running(uri: str) -> DaemonReport:
        raise DaemonError("/usr/sbin/libvirtd -d exited with status 6: cannot bind")

    monkeypatch.setattr(daemons, "unavailable_reason", lambda: None)
    monkeypatch.setattr(daemons, "ensure_running", ensure_running)
    with caplog.at_level(logging.INFO, logger="saphira.virt.loader"):
        drivers = loader.load_drivers(_conf(tmp_path))
    assert [type(d) for d in drivers] == [FakeDriver]
    assert caplog.messages == [
        "compute driver: fake.FakeDriver (/usr/sbin/libvirtd -d exited with status 6: cannot bind)"
    ]
