"""Choose libvirt's virt_type by proof: KVM only if a guest really boots on it.

``/dev/kvm`` existing proves little: on a nested host it opens, creates VMs, and
still every Linux guest hangs or dies (a bare vCPU running a boot sector does
succeed there, which is why the probe boots a real kernel). The probe boots the
tiny test kernel + initramfs under ``-accel kvm`` and waits for its marker on the
serial console. The answer is cached per host boot (``boot_id``) under the state
path, since KVM cannot start or stop working without a reboot in practice.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from saphira.guest_image import BOOTED, CMDLINE
from saphira.virt.probe_run import ProbeRun, run_qemu

LOG = logging.getLogger(__name__)
DEV_KVM = Path("/dev/kvm")
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
CACHE_NAME = "kvm-probe.json"
TIMEOUT = 10.0

VirtType = Literal["kvm", "qemu"]
Runner = Callable[[list[str], Path, float, str], ProbeRun]


@dataclass(frozen=True)
class ProbeGuest:
    """A guest that prints marker on its serial console soon after it starts."""

    kernel: Path
    initrd: Path
    cmdline: str
    marker: str


@dataclass(frozen=True)
class ProbeResult:
    kvm_works: bool
    reason: str


@dataclass(frozen=True)
class VirtTypeDecision:
    """The virt_type to use and why; warning means the operator must look."""

    virt_type: VirtType
    reason: str
    warning: bool = False
    advice: str | None = None


def device_advice(dev: Path = DEV_KVM) -> str | None:
    """A hint when /dev/kvm is root-only: libvirt then re-probes QEMU on every
    capabilities call, which costs seconds each time."""
    try:
        st = dev.stat()
    except OSError:
        return None
    if stat.S_IMODE(st.st_mode) & 0o060 == 0:
        return f"{dev} is mode {stat.S_IMODE(st.st_mode):o}: set it to root:kvm 0660"
    return None


def probe_argv(guest: ProbeGuest, serial_log: Path, qemu: str) -> list[str]:
    return [
        qemu, "-accel", "kvm", "-cpu", "host", "-m", "128", "-smp", "1",
        "-display", "none", "-monitor", "none", "-nodefaults", "-no-reboot", "-nic", "none",
        "-serial", f"file:{serial_log}",
        "-kernel", str(guest.kernel), "-initrd", str(guest.initrd),
        "-append", f"{guest.cmdline} console=ttyS0 panic=-1",
    ]  # fmt: skip


def probe(
    guest: ProbeGuest | None,
    runner: Runner = run_qemu,
    dev: Path = DEV_KVM,
    qemu: str = "qemu-system-x86_64",
    timeout: float = TIMEOUT,
) -> ProbeResult:
    """Boot guest under KVM; the result says whether KVM works and why."""
    if not dev.exists():
        return ProbeResult(False, f"{dev} does not exist")
    if not os.access(dev, os.R_OK | os.W_OK):
        return ProbeResult(False, f"{dev} exists but this user cannot open it read-write")
    if guest is None:
        return ProbeResult(False, f"{dev} exists but no probe guest is available to prove it")
    with tempfile.TemporaryDirectory(prefix="saphira-kvm-probe-") as tmp:
        serial = Path(tmp) / "serial.log"
        run = runner(probe_argv(guest, serial, qemu), serial, timeout, guest.marker)
    if run.booted:
        return ProbeResult(True, f"a probe guest booted under KVM in {run.seconds:.1f} s")
    return ProbeResult(
        False, f"KVM present but a probe guest did not boot within {timeout:g} s: {run.detail}"
    )


def _boot_id(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def cached_probe(
    state_path: Path, probe_fn: Callable[[], ProbeResult], boot_id_path: Path = BOOT_ID
) -> ProbeResult:
    """probe_fn()'s answer, run at most once per host boot."""
    boot_id = _boot_id(boot_id_path)
    cache = state_path / CACHE_NAME
    try:
        saved = json.loads(cache.read_text())
        if boot_id and saved.get("boot_id") == boot_id:
            return ProbeResult(bool(saved["kvm_works"]), str(saved["reason"]))
    except (OSError, ValueError, KeyError, AttributeError):
        pass
    result = probe_fn()
    if boot_id:
        state_path.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        record = {"boot_id": boot_id, "kvm_works": result.kvm_works, "reason": result.reason}
        tmp.write_text(json.dumps(record) + "\n")
        tmp.replace(cache)
    return result


def decide(configured: str, probe_fn: Callable[[], ProbeResult]) -> VirtTypeDecision:
    """Apply [libvirt] virt_type ('auto', 'kvm' or 'qemu') to the probe's answer."""
    if configured == "qemu":
        return VirtTypeDecision("qemu", "[libvirt] virt_type = qemu (no probe)")
    if configured not in ("auto", "kvm"):
        raise ValueError(f"virt_type must be auto, kvm or qemu, not {configured!r}")
    result = probe_fn()
    advice = device_advice()
    if configured == "kvm":
        if result.kvm_works:
            return VirtTypeDecision(
                "kvm", f"[libvirt] virt_type = kvm; {result.reason}", False, advice
            )
        reason = f"[libvirt] virt_type = kvm is forced, but guests will fail: {result.reason}"
        return VirtTypeDecision("kvm", reason, True, advice)
    if result.kvm_works:
        return VirtTypeDecision("kvm", f"KVM proved: {result.reason}", False, advice)
    return VirtTypeDecision("qemu", f"using qemu (TCG): {result.reason}", False, advice)


def choose_virt_type(
    configured: str,
    state_path: Path,
    guest: ProbeGuest | None,
    runner: Runner = run_qemu,
) -> VirtTypeDecision:
    """The start-up entry point: decide, probing at most once per boot, and log it."""
    decision = decide(configured, lambda: cached_probe(state_path, lambda: probe(guest, runner)))
    log_decision(decision)
    return decision


def log_decision(decision: VirtTypeDecision, log: logging.Logger = LOG) -> None:
    level = logging.WARNING if decision.warning else logging.INFO
    log.log(level, "virt_type=%s: %s", decision.virt_type, decision.reason)
    if decision.advice:
        log.warning("%s", decision.advice)


def probe_guest_in(directory: Path) -> ProbeGuest | None:
    """The tiny test image built in ``directory`` as a probe guest, if it is there."""
    kernel, initrd = directory / "vmlinux", directory / "initramfs.img"
    if kernel.is_file() and initrd.is_file():
        return ProbeGuest(kernel, initrd, CMDLINE, BOOTED)
    return None
