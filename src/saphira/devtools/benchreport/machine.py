"""The machine a report ran on: CPU, cores, memory, kernel, KVM, load, commit."""

from __future__ import annotations

import os
import platform
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from saphira.guest_image import ImageBuildError, shared
from saphira.virt import kvm_probe


@dataclass(frozen=True)
class Machine:
    cpu: str
    cores: int
    memory_gib: float
    kernel: str
    kvm: str
    commit: str
    date: str


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    for text in cpuinfo.read_text().splitlines():
        if text.startswith("model name"):
            return text.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def memory_gib(meminfo: Path = Path("/proc/meminfo")) -> float:
    for text in meminfo.read_text().splitlines():
        if text.startswith("MemTotal:"):
            return int(text.split()[1]) / 1024 / 1024
    return 0.0


def kvm() -> str:
    """Whether a guest boots under KVM here (the driver's own probe); the benches use TCG."""
    try:
        with shared() as image:  # the user's cached tiny image, built once if absent
            result = kvm_probe.probe(kvm_probe.probe_guest_in(image.directory))
    except ImageBuildError as error:
        result = kvm_probe.ProbeResult(False, f"no probe guest: {error}")
    usable = "KVM usable" if result.kvm_works else "KVM not usable"
    reason = result.reason[:240].replace("`", "'")  # Markdown: no stray code span
    return f"TCG in the benches (virt_type = qemu); {usable}: {reason}"


def commit(repo: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "describe", "--always", "--dirty", "--abbrev=12"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "unknown"


def this_machine(repo: Path) -> Machine:
    return Machine(
        cpu=cpu_model(),
        cores=os.cpu_count() or 0,
        memory_gib=memory_gib(),
        kernel=f"{platform.system()} {platform.release()}",
        kvm=kvm(),
        commit=commit(repo),
        date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    )


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def header(machine: Machine, load_before: str, load_after: str) -> str:
    """The Markdown lines that say where and when the report ran."""
    return "\n".join(
        [
            f"- CPU: {machine.cpu}, {machine.cores} cores",
            f"- memory: {machine.memory_gib:.1f} GiB",
            f"- kernel: {machine.kernel}",
            f"- guests: {machine.kvm}",
            f"- load average (1, 5, 15 min): before {load_before}, after {load_after}",
            f"- date: {machine.date}",
            f"- git commit: {machine.commit}",
        ]
    )
