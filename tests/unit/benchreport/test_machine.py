"""The report's machine header, read from /proc-shaped files."""

from __future__ import annotations

from pathlib import Path

from saphira.devtools.benchreport import machine


def test_cpu_model_and_memory_are_read_from_proc_files(tmp_path: Path) -> None:
    cpuinfo, meminfo = tmp_path / "cpuinfo", tmp_path / "meminfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu\n")
    meminfo.write_text("MemTotal:       24641536 kB\nMemFree:         1000 kB\n")
    assert machine.cpu_model(cpuinfo) == "AMD EPYC 7B13"
    assert round(machine.memory_gib(meminfo), 1) == 23.5


def test_the_header_names_every_part_of_the_machine() -> None:
    host = machine.Machine("AMD EPYC", 2, 23.5, "Linux 6.1", "TCG", "abc123", "2026-12-03")
    lines = machine.header(host, "0.10 0.20 0.30", "1.00 0.50 0.40").splitlines()
    assert lines == [
        "- CPU: AMD EPYC, 2 cores",
        "- memory: 23.5 GiB",
        "- kernel: Linux 6.1",
        "- guests: TCG",
        "- load average (1, 5, 15 min): before 0.10 0.20 0.30, after 1.00 0.50 0.40",
        "- date: 2026-12-03",
        "- git commit: abc123",
    ]
