"""``api_db sync|version`` and ``db sync|version``, as nova-manage has them."""

from __future__ import annotations

import argparse
from typing import Any

from oslo_config import cfg

from saphira.db import cells


def _api_db_sync(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    cells.api_db_sync(conf)
    return 0


def _api_db_version(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    print(cells.api_db_version(conf) or "None")
    return 0


def _db_sync(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    results = cells.db_sync(conf, local_cell=args.local_cell)
    if not args.local_cell and not any(result.is_cell0 for result in results):
        print("WARNING: cell0 mapping not found - not syncing cell0.")
    return 0


def _db_version(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    print(cells.db_version(conf) or "None")
    return 0


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``api_db`` and ``db`` categories to saphira-manage."""
    api_db = subparsers.add_parser("api_db", help="API database schema")
    api_actions = api_db.add_subparsers(dest="action", required=True, metavar="<action>")
    sync = api_actions.add_parser("sync", help="Create or upgrade the API database tables")
    sync.set_defaults(func=_api_db_sync)
    version = api_actions.add_parser("version", help="Print the API database revision")
    version.set_defaults(func=_api_db_version)

    db = subparsers.add_parser("db", help="cell database schema")
    db_actions = db.add_subparsers(dest="action", required=True, metavar="<action>")
    sync = db_actions.add_parser(
        "sync", help="Create or upgrade cell0 and the [database] connection database"
    )
    sync.add_argument(
        "--local_cell",
        action="store_true",
        help="Only sync [database] connection; do not read the API database for cell0",
    )
    sync.set_defaults(func=_db_sync)
    version = db_actions.add_parser("version", help="Print the cell database revision")
    version.set_defaults(func=_db_version)
