"""saphira-manage's entry: one argparse tree built from command modules.

Each module in ``_MODULES`` exposes ``register(subparsers)`` and gives its
leaf commands ``func=handler(conf, args) -> int``. Configuration is loaded
before any handler runs, so a bad value stops the command in one line, and
every SaphiraError ends as one line on stderr with exit code 1.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from oslo_config import cfg

from saphira import conf as saphira_conf
from saphira.exception import SaphiraError

PROG = "saphira-manage"
_MODULES = (
    "saphira.manage.db",
    "saphira.manage.cells",
    "saphira.manage.identity",
    "saphira.manage.compute_token",
)


def _modules() -> list[ModuleType]:
    """The command modules; a module not written yet is simply left out."""
    found = []
    for name in _MODULES:
        try:
            found.append(importlib.import_module(name))
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Saphira operator commands.")
    parser.add_argument(
        "--config-file",
        action="append",
        default=[],
        metavar="PATH",
        help="nova.conf-style file; repeatable, later files override earlier ones",
    )
    parser.add_argument(
        "--config-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="directory of *.conf files read after the config files",
    )
    subparsers = parser.add_subparsers(dest="category", required=True, metavar="<category>")
    for module in _modules():
        module.register(subparsers)
    return parser


def load_conf(args: argparse.Namespace) -> cfg.ConfigOpts:
    """oslo.config sees only the config options; without any, the usual files."""
    argv = [f"--config-file={path}" for path in args.config_file]
    argv += [f"--config-dir={path}" for path in args.config_dir]
    defaults = cfg.find_config_files(project="saphira", prog=PROG)
    return saphira_conf.load(argv, default_config_files=defaults, prog=PROG)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        conf = load_conf(args)
        code: int = args.func(conf, args)
    except SaphiraError as error:
        print(f"ERROR: {_one_line(error.message)}", file=sys.stderr)
        return 1
    except cfg.Error as error:  # e.g. a --config-dir that does not exist
        print(f"ERROR: {_one_line(str(error))}", file=sys.stderr)
        return 1
    return code
