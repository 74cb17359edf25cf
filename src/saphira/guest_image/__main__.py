"""``python -m saphira.guest_image [OUT_DIR]``: build the tiny test image."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from saphira.guest_image import ImageBuildError, build, default_cache_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build-test-image", description=__doc__)
    parser.add_argument("out_dir", nargs="?", default="build/test-image", type=Path)
    parser.add_argument("--cache-dir", type=Path, default=None, help=f"[{default_cache_dir()}]")
    parser.add_argument("--kernel", help="kernel package, e.g. linux-image-6.1.0-57-amd64")
    parser.add_argument("--force", action="store_true", help="rebuild even if up to date")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        image = build(args.out_dir, args.cache_dir, args.kernel, args.force)
    except ImageBuildError as exc:
        print(f"build-test-image: {exc}", file=sys.stderr)
        return 1
    print(f"disk image: {image.qcow2}")
    print(
        f"direct boot: -kernel {image.vmlinux} -initrd {image.initramfs} -append '{image.cmdline}'"
    )
    print(f"done in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
