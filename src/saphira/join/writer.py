"""Files (under ``--root``): written once, never rewritten unchanged, kept unless --force.

A planned file that does not exist is written (a temporary file renamed
into place, so a crash leaves the old file or the new one). One whose bytes
already match is left alone, mtime included: a second join changes nothing.
One that differs is kept, unless ``force``; then the unified diff (secrets
masked) is what the caller prints before anything is replaced.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SECRET = re.compile(r"^([+\- ]?\s*(?:password|metadata_proxy_shared_secret)\s*=\s*).*$", re.M)
URL_PASSWORD = re.compile(r"(://[^:/@\s]+:)[^@\s]+@")


@dataclass(frozen=True)
class Planned:
    path: Path  # where it is written (already under --root)
    text: str
    mode: int = 0o640


@dataclass(frozen=True)
class Outcome:
    path: Path
    action: str  # written, unchanged, kept (differs), replaced
    diff: str = ""


def under(root: Path, path: Path) -> Path:
    return root / path.relative_to(path.anchor) if path.is_absolute() else root / path


def mask(text: str) -> str:
    return URL_PASSWORD.sub(r"\1****@", SECRET.sub(r"\1****", text))


def diff(old: str, new: str, name: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), name, f"{name} (new)"
    )
    return mask("".join(lines))


def write_atomic(path: Path, data: bytes, mode: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as stream:
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def inspect(planned: Planned) -> Outcome:
    """What writing would do, without writing."""
    target = planned.path
    try:
        current = target.read_bytes()
    except FileNotFoundError:
        return Outcome(target, "written")
    if current == planned.text.encode():
        return Outcome(target, "unchanged")
    return Outcome(target, "kept", diff(current.decode("utf-8", "replace"), planned.text,
                                        str(planned.path)))  # fmt: skip


def apply(planned: Planned, force: bool) -> Outcome:
    outcome = inspect(planned)
    if outcome.action == "written" or (outcome.action == "kept" and force):
        write_atomic(outcome.path, planned.text.encode(), planned.mode)
        return Outcome(outcome.path, "replaced" if outcome.action == "kept" else "written",
                       outcome.diff)  # fmt: skip
    return outcome


def apply_all(files: Sequence[Planned], force: bool) -> list[Outcome]:
    return [apply(planned, force) for planned in files]
