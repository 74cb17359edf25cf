"""``saphira verify server NAME|ID`` and ``saphira verify cloud``: exit 0 when everything
checked passed, 1 when a layer (or a host, or an agent) failed, 2 on usage or auth errors."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

import openstack
from keystoneauth1 import exceptions as ksa_exceptions
from openstack import connection
from openstack import exceptions as sdk_exceptions

from saphira.verify import cloud, gather, hostprobe, render
from saphira.verify.model import Wanted
from saphira.verify.run import verify_server

USAGE_ERROR = 2


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    verify = commands.add_parser(
        "verify", help="check a server, or the whole cloud, layer by layer through the APIs"
    )
    kinds = verify.add_subparsers(dest="verify_kind", metavar="WHAT", required=True)
    server = kinds.add_parser("server", help="a server's layers, stopping at the first failed")
    server.add_argument("server", metavar="NAME|ID")
    server.add_argument(
        "--port", default="22/tcp", metavar="PORT/PROTO",
        help="the service whose rules and answer are checked (default: 22/tcp)",
    )  # fmt: skip
    whole = kinds.add_parser("cloud", help="every compute service, hypervisor and agent")
    for parser in (server, whole):
        parser.add_argument(
            "--os-cloud", metavar="NAME",
            help="the clouds.yaml entry (default: $OS_CLOUD, else the OS_* variables)",
        )  # fmt: skip
        parser.add_argument("--json", action="store_true", help="print JSON for tools")


def _fail(message: str) -> int:
    print(f"saphira verify: {message}", file=sys.stderr)
    return USAGE_ERROR


def _server(conn: connection.Connection, args: argparse.Namespace) -> int:
    wanted = Wanted.parse(args.port)
    source = gather.Source(conn)
    try:
        found = source.server(args.server)
    except sdk_exceptions.NotFoundException:
        return _fail(f"no server {args.server!r}")
    report = verify_server(source, found, wanted, hostprobe.probe)
    print(render.report_json(report) if args.json else render.report_text(report))
    return report.exit_status


def _cloud(conn: connection.Connection, args: argparse.Namespace) -> int:
    source = gather.Source(conn)
    try:
        found = cloud.survey(source.services(), source.hypervisors(), source.agents())
    except gather.Hidden as error:
        return _fail(f"verify cloud needs admin: {error}")
    print(render.health_json(found) if args.json else render.health_text(found))
    return 1 if any(not item.up for item in found) else 0


def main(args: argparse.Namespace) -> int:
    run: Callable[[connection.Connection, argparse.Namespace], int]
    run = _server if args.verify_kind == "server" else _cloud
    if args.verify_kind == "server":
        try:
            Wanted.parse(args.port)
        except ValueError as error:
            return _fail(f"--port {error}")
    try:
        conn = openstack.connect(cloud=args.os_cloud) if args.os_cloud else openstack.connect()
        with conn:
            return run(conn, args)
    except (sdk_exceptions.SDKException, ksa_exceptions.ClientException) as error:
        return _fail(str(error))
