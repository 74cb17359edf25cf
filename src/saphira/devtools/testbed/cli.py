"""``python -m saphira.devtools.testbed up|down|status`` (``./tools/dev testbed``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from saphira.devtools.testbed.bed import Bed
from saphira.devtools.testbed.errors import TestbedError
from saphira.devtools.testbed.layout import Layout, check_name
from saphira.devtools.testbed.runner import SystemRunner

NODES = ("node1", "node2")


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="tools/dev testbed",
        description="A controller and compute nodes on one machine, each node in its own "
        "network and mount namespaces (run as root).",
    )
    made.add_argument("command", choices=("up", "down", "status"))
    made.add_argument("--name", default="dev", help="the bed's name (1-6 of [a-z0-9]; default dev)")
    made.add_argument(
        "--mariadb", action="store_true", help="the controller on MariaDB instead of PostgreSQL"
    )
    return made


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        bed = Bed(Layout(check_name(args.name), NODES), SystemRunner())
        if args.command == "up":
            bed.up("mariadb" if args.mariadb else "postgresql")
            lines = bed.status()
        elif args.command == "down":
            lines = [f"not removed: {problem}" for problem in bed.down()]
            lines = lines or [f"bed {args.name}: removed"]
        else:
            lines = bed.status()
    except TestbedError as error:
        print(f"testbed: {error.message}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0
