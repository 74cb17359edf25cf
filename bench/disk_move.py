"""The disk transfer between two compute agents (virt/libvirt/transfer.py) on
loopback: MiB/s of a non-sparse file of ``--size-mib`` sent through a one-time
receiver (token, per-file SHA-256 on both sides), next to ``cp`` + fsync of the
same file, best and median of ``--runs``. No cloud; prints figures only."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from saphira.virt.libvirt import transfer


def _file(path: Path, size_mib: int) -> None:
    block = os.urandom(1024 * 1024)
    with path.open("wb") as out:
        for _ in range(size_mib):
            out.write(block)


def _move(root: Path, disk: Path, run: int) -> float:
    receiver = transfer.Receiver(root / f"dest-{run}", "127.0.0.1", "bench")
    start = time.perf_counter()
    transfer.send(receiver.target, [disk], "bench")
    receiver.wait(600)
    elapsed = time.perf_counter() - start
    shutil.rmtree(root / f"dest-{run}")
    return elapsed


def _cp(root: Path, disk: Path) -> float:
    start = time.perf_counter()
    subprocess.run(["cp", str(disk), str(root / "copy")], check=True)
    subprocess.run(["sync", str(root / "copy")], check=True)
    elapsed = time.perf_counter() - start
    (root / "copy").unlink()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mib", type=int, default=512)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="saphira-disk-move-", dir="/var/tmp") as tmp:
        root = Path(tmp)
        disk = root / "disk"
        _file(disk, args.size_mib)
        moves = [_move(root, disk, run) for run in range(args.runs)]
        copies = [_cp(root, disk) for _ in range(args.runs)]
    for name, times in (("transfer (token, sha256 both sides)", moves), ("cp + sync", copies)):
        rates = [args.size_mib / t for t in times]
        print(f"{name}: {args.size_mib} MiB, best {max(rates):.0f} MiB/s, "
              f"median {statistics.median(rates):.0f} MiB/s over {args.runs} runs")  # fmt: skip


if __name__ == "__main__":
    main()
