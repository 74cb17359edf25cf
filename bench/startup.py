#!/usr/bin/env python3
"""Time from a fresh clone to a ready `saphira up`, then a warm restart.

Steps, each timed: `git clone` of the repository's HEAD into a temporary
directory; the Python environment as `./tools/dev up` makes it (its make_venv,
without the Debian packages, which a prepared host already has); the first
start of `saphira up` on an empty state directory until its readiness line;
stop; the restart on the same state directory. Prints figures; asserts nothing.

    python3 bench/startup.py [--repo PATH] [--worktree] [--keep]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parents[1] / "src"))  # figures: stdlib only
from common import Cloud, free_offset, rss_kib

from saphira.devtools.benchreport.figures import Figure, emit

ROOT = Path(__file__).resolve().parent.parent


def timed(argv: list[str], cwd: Path) -> float:
    began = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - began


def copy_worktree(repo: Path, dest: Path) -> float:
    """Copy tracked and untracked-but-not-ignored files: benchmarks uncommitted work."""
    began = time.perf_counter()
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=repo,
                            check=True, capture_output=True).stdout  # fmt: skip
    for name in filter(None, listed.decode().split("\0")):
        source = repo / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return time.perf_counter() - began


def fetch_source(repo: Path, clone: Path, worktree: bool) -> tuple[str, float]:
    if worktree:
        return "copy of the working tree", copy_worktree(repo, clone)
    seconds = timed(["git", "clone", "-q", str(repo), str(clone)], clone.parent)
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=clone, check=True, capture_output=True,
        text=True,
    ).stdout.strip()  # fmt: skip
    return f"git clone (HEAD {head})", seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=ROOT, help="repository to clone (HEAD)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument(
        "--worktree",
        action="store_true",
        help="copy the working tree (uncommitted changes included) instead of cloning HEAD",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="saphira-bench-startup-"))
    work.chmod(0o711)  # QEMU (the default libvirt driver) must reach the instances under it
    clone = work / "saphira"
    cloud: Cloud | None = None
    try:
        figures: list[tuple[str, float]] = []
        label, seconds = fetch_source(args.repo, clone, args.worktree)
        figures.append((label, seconds))
        make_venv = '. tools/lib.sh && make_venv "$PWD/.venv" "$PWD" ""'
        figures.append(("python environment", timed(["bash", "-c", make_venv], clone)))
        cloud = Cloud([str(clone / ".venv" / "bin" / "saphira")], work / "state", free_offset(),
                      work / "saphira.log")  # fmt: skip
        figures.append(("first start (empty state)", cloud.start()))
        assert cloud.proc is not None
        first_rss = rss_kib(cloud.proc.pid)
        figures.append(("stop (SIGTERM)", cloud.stop()))
        figures.append(("warm restart (same state)", cloud.start()))
        assert cloud.proc is not None
        warm_rss = rss_kib(cloud.proc.pid)
        cold_total = sum(seconds for _, seconds in figures[:3])
        print(f"saphira startup benchmark (from {args.repo})")
        for name, seconds in figures:
            print(f"  {name:<28} {seconds:8.2f} s")
        print(f"  {'clone to ready (total)':<28} {cold_total:8.2f} s")
        print(f"  {'RSS after first start':<28} {first_rss / 1024:8.1f} MiB")
        print(f"  {'RSS after warm restart':<28} {warm_rss / 1024:8.1f} MiB")
        emit(
            Figure(
                "startup.clone_to_ready",
                "fresh clone to a ready saphira up (set-up included)",
                cold_total,
                "s",
            ),
            Figure("startup.warm_restart", "warm restart of saphira up", figures[-1][1], "s"),
            Figure(
                "startup.rss", "RSS of saphira up after its first start", first_rss / 1024, "MiB"
            ),
        )
        return 0
    finally:
        if cloud is not None:
            cloud.take_away()
        if args.keep:
            print(f"  kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
