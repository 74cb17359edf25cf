"""The KVM probe on this very host, against an independent KVM boot as the oracle."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from saphira.guest_image import BOOTED, GuestImage
from saphira.virt import kvm_probe
from saphira.virt.probe_run import ProbeRun
from tests.integration.guest.qemu import Guest, direct_boot_args

pytestmark = pytest.mark.integration


def _guest(image: GuestImage) -> kvm_probe.ProbeGuest:
    return kvm_probe.ProbeGuest(image.vmlinux, image.initramfs, image.cmdline, BOOTED)


def _kvm_boots(image: GuestImage, workdir: Path) -> bool:
    """Our own look, with a more generous timeout than the probe's."""
    if not kvm_probe.DEV_KVM.exists():
        return False
    args = direct_boot_args(image.vmlinux, image.initramfs, image.cmdline)
    with Guest(workdir, ["-cpu", "host", *args, "-nic", "none"], accel="kvm") as guest:
        try:
            guest.wait_for(BOOTED, timeout=20)
        except AssertionError:
            return False
    return True


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("state")


@pytest.fixture(scope="module")
def decision(tiny_image: GuestImage, state: Path) -> kvm_probe.VirtTypeDecision:
    """One real probe for the module; later calls must come from its cache."""
    return kvm_probe.choose_virt_type("auto", state, _guest(tiny_image))


def test_auto_agrees_with_a_real_kvm_boot(
    tiny_image: GuestImage, decision: kvm_probe.VirtTypeDecision, tmp_path: Path
) -> None:
    expected = os.environ.get("SAPHIRA_TEST_EXPECT_VIRT_TYPE")
    if expected:
        assert decision.virt_type == expected, decision.reason
    works = _kvm_boots(tiny_image, tmp_path)
    assert decision.virt_type == ("kvm" if works else "qemu"), decision.reason
    assert not decision.warning
    if not works and kvm_probe.DEV_KVM.exists():
        assert "KVM present but a probe guest did not boot within 10 s" in decision.reason


def test_the_answer_is_cached_for_this_boot(
    tiny_image: GuestImage, decision: kvm_probe.VirtTypeDecision, state: Path
) -> None:

    def must_not_run(argv: list[str], serial: Path, timeout: float, marker: str) -> ProbeRun:
        raise AssertionError("the probe ran again in the same boot")

    again = kvm_probe.choose_virt_type("auto", state, _guest(tiny_image), must_not_run)
    assert again == decision
    assert (state / kvm_probe.CACHE_NAME).is_file()


def test_forcing_kvm_warns_exactly_when_the_probe_failed(
    tiny_image: GuestImage, decision: kvm_probe.VirtTypeDecision, state: Path
) -> None:
    forced = kvm_probe.choose_virt_type("kvm", state, _guest(tiny_image))
    assert forced.virt_type == "kvm"
    assert forced.warning == (decision.virt_type == "qemu")


def test_explicit_qemu_never_probes(tmp_path: Path) -> None:
    explicit = kvm_probe.choose_virt_type("qemu", tmp_path, None)
    assert explicit.virt_type == "qemu"
    assert not (tmp_path / kvm_probe.CACHE_NAME).exists()
