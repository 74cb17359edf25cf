"""The virt_type decision with a fake probe runner: no QEMU, no /dev/kvm needed."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from saphira.virt import kvm_probe
from saphira.virt.kvm_probe import ProbeGuest, ProbeResult
from saphira.virt.probe_run import ProbeRun


class FakeRunner:
    def __init__(self, booted: bool, detail: str = "marker seen") -> None:
        self.run = ProbeRun(booted, 0.7, detail)
        self.calls: list[list[str]] = []

    def __call__(self, argv: list[str], serial: Path, timeout: float, marker: str) -> ProbeRun:
        self.calls.append(argv)
        return self.run


@pytest.fixture
def dev(tmp_path: Path) -> Path:
    path = tmp_path / "kvm"
    path.write_bytes(b"")
    path.chmod(0o660)
    return path


@pytest.fixture
def guest(tmp_path: Path) -> ProbeGuest:
    return ProbeGuest(tmp_path / "vmlinux", tmp_path / "initrd", "quiet", "BOOTED")


def test_missing_device_means_qemu_without_running_anything(
    tmp_path: Path, guest: ProbeGuest
) -> None:
    runner = FakeRunner(True)
    result = kvm_probe.probe(guest, runner, dev=tmp_path / "absent")
    assert not result.kvm_works
    assert "does not exist" in result.reason
    assert runner.calls == []


def test_a_booting_probe_guest_proves_kvm(dev: Path, guest: ProbeGuest) -> None:
    runner = FakeRunner(True)
    result = kvm_probe.probe(guest, runner, dev=dev, qemu="my-qemu")
    assert result.kvm_works
    argv = runner.calls[0]
    assert argv[0] == "my-qemu"
    assert argv[argv.index("-accel") + 1] == "kvm"
    assert str(guest.kernel) in argv
    assert argv[argv.index("-nic") + 1] == "none"


def test_a_silent_probe_guest_means_qemu_with_what_happened(dev: Path, guest: ProbeGuest) -> None:
    runner = FakeRunner(False, "KVM internal error; console: (empty)")
    result = kvm_probe.probe(guest, runner, dev=dev, timeout=10)
    assert not result.kvm_works
    assert result.reason.startswith("KVM present but a probe guest did not boot within 10 s: ")
    assert "KVM internal error" in result.reason


def test_no_probe_guest_means_qemu(dev: Path) -> None:
    result = kvm_probe.probe(None, FakeRunner(True), dev=dev)
    assert not result.kvm_works
    assert "no probe guest" in result.reason


@pytest.mark.parametrize(
    ("configured", "works", "virt_type", "warning"),
    [
        ("auto", True, "kvm", False),
        ("auto", False, "qemu", False),
        ("kvm", True, "kvm", False),
        ("kvm", False, "kvm", True),
    ],
)
def test_decision_table(configured: str, works: bool, virt_type: str, warning: bool) -> None:
    decision = kvm_probe.decide(configured, lambda: ProbeResult(works, "because"))
    assert (decision.virt_type, decision.warning) == (virt_type, warning)
    assert "because" in decision.reason


def test_explicit_qemu_does_not_probe() -> None:
    def probe() -> ProbeResult:
        raise AssertionError("probed")

    decision = kvm_probe.decide("qemu", probe)
    assert decision.virt_type == "qemu"
    assert "virt_type = qemu" in decision.reason


def test_unknown_virt_type_is_refused() -> None:
    with pytest.raises(ValueError, match="xen"):
        kvm_probe.decide("xen", lambda: ProbeResult(True, ""))


def test_forced_kvm_that_fails_is_logged_as_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    decision = kvm_probe.decide("kvm", lambda: ProbeResult(False, "guest hung"))
    with caplog.at_level(logging.INFO, logger="test"):
        kvm_probe.log_decision(decision, logging.getLogger("test"))
    record = next(r for r in caplog.records if "virt_type=kvm" in r.getMessage())
    assert record.levelno == logging.WARNING
    assert "guest hung" in record.getMessage()


def test_probe_is_cached_per_boot_id(tmp_path: Path) -> None:
    boot_id = tmp_path / "boot_id"
    boot_id.write_text("boot-1\n")
    calls: list[int] = []

    def probe() -> ProbeResult:
        calls.append(1)
        return ProbeResult(False, f"run {len(calls)}")

    state = tmp_path / "state"
    first = kvm_probe.cached_probe(state, probe, boot_id)
    second = kvm_probe.cached_probe(state, probe, boot_id)
    assert first == second == ProbeResult(False, "run 1")
    boot_id.write_text("boot-2\n")
    assert kvm_probe.cached_probe(state, probe, boot_id).reason == "run 2"
    (state / kvm_probe.CACHE_NAME).write_text("{not json")
    assert kvm_probe.cached_probe(state, probe, boot_id).reason == "run 3"


def test_root_only_device_gets_advice(dev: Path) -> None:
    assert kvm_probe.device_advice(dev) is None
    dev.chmod(0o600)
    advice = kvm_probe.device_advice(dev)
    assert advice is not None
    assert "0660" in advice
