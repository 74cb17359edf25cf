"""``saphira-manage compute-token create [--ttl SECONDS] [--address HOST]``.

Prints one argument for ``saphira-openstack-setup-compute --token``: the
compute API's addresses (``[DEFAULT] my_ip`` unless ``--address`` names
others), a token id and a secret. The token is single use and short-lived
(an hour unless ``--ttl``, at most a day); the API database keeps only the
secret's hash.
"""

from __future__ import annotations

import argparse

from oslo_config import cfg

from saphira.conf.endpoints import by_type, listen_port
from saphira.db.api import connect, join_tokens
from saphira.domain.join_token import JoinToken, encode
from saphira.exception import ValidationError

DEFAULT_TTL = 3600


def _create(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    if not 0 < args.ttl <= join_tokens.MAX_TTL:
        raise ValidationError(detail=f"--ttl must be 1 to {join_tokens.MAX_TTL} seconds")
    port = listen_port(conf, by_type("compute"))
    hosts = args.address or [conf.my_ip]
    with connect.session_for("api", connect.api_url(conf), conf) as session:
        token_id, secret = join_tokens.create(session, args.ttl)
    print(encode(JoinToken(tuple(f"{host}:{port}" for host in hosts), token_id, secret)))
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    category = subparsers.add_parser("compute-token", help="join tokens for new compute nodes")
    actions = category.add_subparsers(dest="action", required=True, metavar="<action>")
    create = actions.add_parser("create", help="print a single-use join token")
    create.add_argument(
        "--ttl",
        type=int,
        default=DEFAULT_TTL,
        help=f"seconds it stays valid (default {DEFAULT_TTL})",
    )
    create.add_argument(
        "--address",
        action="append",
        default=[],
        metavar="HOST",
        help="an address the nodes reach the compute API at (repeatable)",
    )
    create.set_defaults(func=_create)  # fmt: skip
