"""``cell_v2`` commands with nova-manage's options, wording and exit codes."""

from __future__ import annotations

import argparse
import sys
import urllib.parse
from collections.abc import Callable
from typing import Any

from oslo_config import cfg

from saphira.db import cells
from saphira.db.engine import MASK, mask_url
from saphira.exception import SaphiraError
from saphira.manage.table import format_table

Handler = Callable[[cfg.ConfigOpts, argparse.Namespace], int]

# nova-manage's exit codes for the failures it distinguishes; any other is 1.
_EXIT_CODES: tuple[tuple[type[SaphiraError], int], ...] = (
    (cells.CellExists, 2),
    (cells.HostMappingExists, 2),
    (cells.CellHasHosts, 2),
    (cells.CellHasInstances, 3),
)


def _exit_codes(handler: Handler) -> Handler:
    def run(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
        try:
            return handler(conf, args)
        except tuple(error for error, _ in _EXIT_CODES) as error:
            print(f"ERROR: {error.message}", file=sys.stderr)
            return next(code for kind, code in _EXIT_CODES if isinstance(error, kind))

    return run


def mask_transport_url(url: str) -> str:
    """Mask every host's password, as nova-manage's mask_passwd_in_url does.

    rabbit:// URLs may list several hosts, each with its own credentials. A URL
    without a password comes back unchanged (no re-rendering of "inproc://").
    """
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url
    hosts = []
    for host in parts.netloc.split(","):
        userinfo, at, address = host.rpartition("@")
        if at and ":" in userinfo:
            host = f"{userinfo.split(':', 1)[0]}:{MASK}@{address}"
        hosts.append(host)
    return urllib.parse.urlunsplit(parts._replace(netloc=",".join(hosts)))


def _map_cell0(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    _cell, created = cells.map_cell0(conf, args.database_connection)
    if not created:
        print("Cell0 is already setup")
    return 0


@_exit_codes
def _create_cell(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    cell, _created = cells.create_cell(
        conf, args.name, args.transport_url, args.database_connection, args.disabled
    )
    if args.verbose:
        print(cell.uuid)
    return 0


def _list_cells(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    rows = []
    for cell in cells.list_cells(conf):
        transport, database = cell.transport_url, cell.url
        if not args.verbose:
            transport, database = mask_transport_url(transport), mask_url(database)
        rows.append([cell.name, cell.uuid, transport, database, cell.disabled])
    headers = ["Name", "UUID", "Transport URL", "Database Connection", "Disabled"]
    print(format_table(headers, rows))
    return 0


@_exit_codes
def _discover_hosts(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    status = print if args.verbose else None
    found = cells.discover_hosts(conf, args.cell_uuid, args.by_service, status)
    return int(args.strict and not found)


def _list_hosts(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    rows = [[h.cell_name, h.cell_uuid, h.host] for h in cells.list_hosts(conf, args.cell_uuid)]
    print(format_table(["Cell Name", "Cell UUID", "Hostname"], rows))
    return 0


@_exit_codes
def _delete_cell(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    cells.delete_cell(conf, args.cell_uuid)
    return 0


@_exit_codes
def _update_cell(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    cells.update_cell(
        conf,
        args.cell_uuid,
        name=args.name,
        transport_url=args.transport_url,
        database_connection=args.database_connection,
        disabled=args.disabled,
    )
    return 0


def _urls(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--transport-url", dest="transport_url", help=f"message bus URL {what}")
    parser.add_argument("--database_connection", help=f"database URL {what}")


def _add(
    actions: argparse._SubParsersAction[Any], name: str, handler: Handler, text: str
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = actions.add_parser(name, help=text, description=text)
    parser.set_defaults(func=handler)
    return parser


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``cell_v2`` category to saphira-manage."""
    category = subparsers.add_parser("cell_v2", help="cells v2 mappings")
    actions = category.add_subparsers(dest="action", required=True, metavar="<action>")

    cell0 = _add(actions, "map_cell0", _map_cell0, "Map cell0 (instances that got no host)")
    cell0.add_argument(
        "--database_connection", help="cell0 database URL (default: [database] + '_cell0')"
    )

    create = _add(actions, "create_cell", _create_cell, "Map a cell")
    create.add_argument("--name", help="the name of the cell")
    _urls(create, "of the cell (default: from the configuration)")
    create.add_argument("--verbose", action="store_true", help="print the cell's UUID")
    create.add_argument("--disabled", action="store_true", help="create the cell disabled")

    listing = _add(actions, "list_cells", _list_cells, "List the cells")
    listing.add_argument("--verbose", action="store_true", help="show passwords")

    discover = _add(actions, "discover_hosts", _discover_hosts, "Map unmapped compute hosts")
    discover.add_argument("--cell_uuid", help="search only this cell")
    discover.add_argument("--verbose", action="store_true", help="say what is found")
    discover.add_argument(
        "--strict", action="store_true", help="exit 1 unless a new host was mapped"
    )
    discover.add_argument(
        "--by-service", dest="by_service", action="store_true",
        help="discover by compute service instead of compute node",
    )  # fmt: skip

    hosts = _add(actions, "list_hosts", _list_hosts, "List the host mappings")
    hosts.add_argument("--cell_uuid", help="list only this cell's hosts")

    delete = _add(actions, "delete_cell", _delete_cell, "Delete an empty cell")
    delete.add_argument("--cell_uuid", required=True, help="the cell to delete")

    update = _add(actions, "update_cell", _update_cell, "Change a cell's mapping")
    update.add_argument("--cell_uuid", required=True, help="the cell to change")
    update.add_argument("--name", help="new name")
    _urls(update, "(new value)")
    state = update.add_mutually_exclusive_group()
    state.add_argument("--disable", dest="disabled", action="store_const", const=True)
    state.add_argument("--enable", dest="disabled", action="store_const", const=False)
