"""``python -m saphira.devtools.testbed up|down|status|list`` (``./tools/dev testbed``).

``list`` names every bed with a state file (a test run killed before its
``down`` leaves one; ``down --name`` removes it)."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Mapping, Sequence

from saphira.devtools.testbed.bed import Bed, Servers
from saphira.devtools.testbed.errors import TestbedError
from saphira.devtools.testbed.layout import RUN_DIR, Layout, check_name
from saphira.devtools.testbed.runner import SystemRunner
from saphira.devtools.testbed.servers import RABBITMQCTL
from saphira.exception import SaphiraError

NODES = ("node1", "node2")
BACKENDS = {"postgresql": "SAPHIRA_TEST_POSTGRESQL", "mariadb": "SAPHIRA_TEST_MARIADB"}
RABBIT = "SAPHIRA_TEST_RABBIT"


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="tools/dev testbed",
        description="A controller and compute nodes on one machine, each node in its own "
        "network and mount namespaces (run as root).",
    )
    made.add_argument("command", choices=("up", "down", "status", "list"))
    made.add_argument("--name", default="dev", help="the bed's name (1-6 of [a-z0-9]; default dev)")
    made.add_argument(
        "--mariadb", action="store_true", help="the controller on MariaDB instead of PostgreSQL"
    )
    default_db = f"${BACKENDS['postgresql']}, with --mariadb ${BACKENDS['mariadb']}"
    made.add_argument("--database-url", help=f"the database server (default {default_db})")
    made.add_argument("--transport-url", help=f"RabbitMQ (default ${RABBIT})")
    made.add_argument(
        "--rabbitmqctl", default=shlex.join(RABBITMQCTL),
        help="the command that manages that broker's virtual hosts, split as a shell would "
        "(e.g. 'rabbitmqctl -n rabbit@other'; default rabbitmqctl)",
    )  # fmt: skip
    made.add_argument(
        "--no-controller", action="store_true", help="only the nodes and networks, no controller"
    )
    return made


def servers(args: argparse.Namespace, env: Mapping[str, str] = os.environ) -> Servers | None:
    """The controller's servers from the flags or the test servers' variables."""
    if args.command != "up" or args.no_controller:
        return None
    backend = "mariadb" if args.mariadb else "postgresql"
    database = args.database_url or env.get(BACKENDS[backend], "")
    rabbit = args.transport_url or env.get(RABBIT, "")
    if not (database and rabbit):
        raise TestbedError(
            detail=f"the controller needs --database-url or ${BACKENDS[backend]} and "
            f"--transport-url or ${RABBIT} (./tools/dev testbed starts the servers and sets them)"
        )
    return Servers(database, rabbit, tuple(shlex.split(args.rabbitmqctl)))


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        bed = Bed(Layout(check_name(args.name), NODES), SystemRunner())
        if args.command == "up":
            bed.up("mariadb" if args.mariadb else "postgresql", servers(args))
            lines = bed.status()
        elif args.command == "down":
            lines = [f"not removed: {problem}" for problem in bed.down()]
            lines = lines or [f"bed {args.name}: removed"]
        elif args.command == "list":
            names = sorted(path.stem for path in RUN_DIR.glob("*.json"))
            lines = names or ["no bed is up"]
        else:
            lines = bed.status()
    except SaphiraError as error:  # TestbedError, or a first-start step's database error
        print(f"testbed: {error.message}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0
