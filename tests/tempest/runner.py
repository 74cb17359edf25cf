"""Run ``tempest run`` in a workspace and read back what happened to each test.

Results come from the subunit stream stestr keeps (``stestr last --subunit``),
not from tempest's console output: per test id, its status and, for a skip,
tempest's own reason. A class whose setUpClass failed or skipped runs none of
its tests; its error or skip reason is kept for the report.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import subunit
import testtools
from testtools.testresult.real import TestDict

BIN = Path(sys.executable).parent
CONCURRENCY = 2
TIMEOUT = 600
_ATTRS = re.compile(r"\[.*\]$")
_CLASS_ERROR = re.compile(r"^(setUpClass|tearDownClass) \((.+)\)$")


@dataclass
class Outcome:
    status: str  # success, fail, skip, ...
    reason: str = ""


@dataclass
class RunResult:
    returncode: int
    output: str
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    class_errors: dict[str, str] = field(default_factory=dict)
    class_skips: dict[str, str] = field(default_factory=dict)


def _details_text(details: dict[str, Any]) -> str:
    parts = []
    for name in ("reason", "traceback"):
        content = details.get(name)
        if content is not None:
            parts.append(
                b"".join(bytes(c) for c in content.iter_bytes()).decode("utf-8", "replace")
            )
    return "\n".join(parts).strip()


def parse_subunit(stream: bytes) -> tuple[dict[str, Outcome], dict[str, str], dict[str, str]]:
    """(outcome per test id, error per failed class, reason per skipped class)."""
    outcomes: dict[str, Outcome] = {}
    class_errors: dict[str, str] = {}
    class_skips: dict[str, str] = {}

    def record(test: TestDict) -> None:
        test_id, status = str(test["id"]), str(test["status"])
        text = _details_text(test.get("details", {}))
        matched = _CLASS_ERROR.match(test_id)
        if matched:
            if status == "fail":
                class_errors[matched.group(2)] = text
            elif status == "skip":
                class_skips[matched.group(2)] = text
            return
        outcomes[_ATTRS.sub("", test_id)] = Outcome(status, text)

    result = testtools.StreamToDict(record)
    result.startTestRun()
    subunit.ByteStreamToStreamResult(io.BytesIO(stream), non_subunit_name="stdout").run(result)
    result.stopTestRun()
    return outcomes, class_errors, class_skips


def run(workdir: Path, conf_path: Path, timeout: float = TIMEOUT) -> RunResult:
    """``tempest run`` on the workspace's include list; the outcome of every test it ran
    (``timeout``: seconds for the whole run)."""
    include = workdir / "etc" / "include-list.txt"
    command = [
        str(BIN / "tempest"), "run", "--config-file", str(conf_path),
        "--include-list", str(include), "--concurrency", str(CONCURRENCY),
    ]  # fmt: skip
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(workdir), "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        command, cwd=workdir, capture_output=True, text=True, env=env, timeout=timeout
    )
    last = subprocess.run(
        [str(BIN / "stestr"), "last", "--subunit"],
        cwd=workdir,
        capture_output=True,
        env=env,
        timeout=60,
    )
    outcomes, class_errors, class_skips = parse_subunit(last.stdout)
    return RunResult(
        done.returncode, done.stdout + done.stderr, outcomes, class_errors, class_skips
    )
