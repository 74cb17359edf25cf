"""A skip the suite does not expect fails the run.

tests/expected-skips.txt lists the skips a green run may have, each with the
reason its test gives: genuinely absent host features (a kernel without
802.1Q, a run without root). Any other skip fails the session, naming the
test and its reason; a server or tool the test command provides fails the
test itself instead of skipping (tests/environment.py).

An entry marked ``host`` skips only where the host lacks the feature: when
its test runs instead, that is printed. An unmarked entry must skip wherever
its test runs: if it ran, its reason is gone, and the run fails until the
entry goes too.

The ledger lives in the process that reports: the only one without xdist,
the controller with it (pytest_runtest_logreport there sees every worker's
reports).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

LIST = Path(__file__).with_name("expected-skips.txt")
FORM = "<node id pattern> | <reason> [| host]"


@dataclass(frozen=True)
class Expected:
    """One line of the list: node ids matching ``pattern`` may skip saying ``reason``."""

    pattern: str  # a node id; ``*`` matches anything, every other character itself
    reason: str  # a part of the skip's reason
    line: int
    host: bool = False  # skips on some hosts only

    def matches(self, nodeid: str) -> bool:
        """Also without the ``@group`` that xdist's loadgroup appends to a grouped test's id."""
        regex = ".*".join(re.escape(part) for part in self.pattern.split("*"))
        plain = nodeid.rpartition("@")[0] or nodeid
        return any(re.fullmatch(regex, each) is not None for each in (nodeid, plain))

    def explains(self, nodeid: str, reason: str) -> bool:
        return self.matches(nodeid) and self.reason in reason


def parse(text: str, name: str = LIST.name) -> list[Expected]:
    """The list's entries, one a line (``FORM``); lines starting with # are comments."""
    entries = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [part.strip() for part in line.split("|")]
        if len(parts) not in (2, 3) or not all(parts[:2]) or parts[2:] not in ([], ["host"]):
            raise ValueError(f"{name}:{number}: not '{FORM}': {raw}")
        entries.append(Expected(parts[0], parts[1], number, host=parts[2:] == ["host"]))
    return entries


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """What the skip (or expected failure) said, without pytest's "Skipped: "."""
    wasxfail = getattr(report, "wasxfail", None)
    if wasxfail is not None:
        return f"xfail: {wasxfail}"
    longrepr = report.longrepr
    message = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return message.removeprefix("Skipped: ")


@dataclass(eq=False)  # a plugin must hash by identity
class SkipLedger:
    """Every skip and every test that ran, judged against the list at the end."""

    listing: Path
    expected: list[Expected]
    unexpected: dict[str, str] = field(default_factory=dict)
    ran: set[str] = field(default_factory=set)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.skipped:
            self._skipped(report.nodeid, skip_reason(report))
        elif report.when == "call":
            self.ran.add(report.nodeid)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.skipped:
            self._skipped(report.nodeid, skip_reason(report))

    def _skipped(self, nodeid: str, reason: str) -> None:
        if not any(entry.explains(nodeid, reason) for entry in self.expected):
            self.unexpected[nodeid] = reason

    def not_skipped(self, host: bool) -> list[str]:
        """The ``host`` (or unmarked) entries whose tests ran this session, one line each."""
        found = []
        for entry in (e for e in self.expected if e.host is host):
            nodeids = sorted(n for n in self.ran if entry.matches(n))
            if nodeids:
                where = f"{self.listing.name}:{entry.line} ({entry.reason})"
                found.append(f"{where} ran: {', '.join(nodeids)}")
        return found

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        failed = self.unexpected or self.not_skipped(host=False)
        if failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        report = terminalreporter
        if self.unexpected:
            report.section("unexpected skips (the run fails)", red=True)
            for nodeid, reason in sorted(self.unexpected.items()):
                report.write_line(f"{nodeid}: {reason}")
            report.write_line(f"An expected skip belongs in {self.listing} with its reason;")
            report.write_line("a broken environment must fail, not skip.")
        if stale := self.not_skipped(host=False):
            report.section("expected skips that no longer happen (the run fails)", red=True)
            for line in [*stale, "Their reason is gone: take them off the list."]:
                report.write_line(line)
        if present := self.not_skipped(host=True):
            report.section("expected skips not needed on this host", yellow=True)
            for line in present:
                report.write_line(line)


def register(config: pytest.Config, listing: Path = LIST) -> None:
    """Keep the ledger in the reporting process (never in an xdist worker)."""
    if not hasattr(config, "workerinput"):
        ledger = SkipLedger(listing, parse(listing.read_text(), listing.name))
        config.pluginmanager.register(ledger, "expected-skips")
