"""``bootstrap``, ``fernet_setup``, ``fernet_rotate`` and ``identity_db sync|version``.

They do what keystone-manage's commands of the same names do. ``bootstrap``
also syncs the identity database and creates the key repository when they are
missing, so one command readies identity on a fresh machine.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from oslo_config import cfg

from saphira.conf.endpoints import ENDPOINTS, public_url
from saphira.db import migration
from saphira.db.identity import make_identity_engine, sync
from saphira.exception import ConfigError
from saphira.identity.backend import IdentityBackend, key_repository
from saphira.identity.bootstrap import ServiceEndpoints, bootstrap


def catalog_endpoints(
    conf: cfg.ConfigOpts, args: argparse.Namespace
) -> dict[str, ServiceEndpoints]:
    """Identity from the options (default my_ip:5000/v3), the rest from the endpoint table."""
    result = {}
    for endpoint in ENDPOINTS:
        if not endpoint.in_catalog:
            continue
        url = public_url(conf, endpoint)
        if endpoint.catalog_type == "identity":
            public = args.bootstrap_public_url or url
            result["identity"] = ServiceEndpoints(
                public=public,
                internal=args.bootstrap_internal_url or public,
                admin=args.bootstrap_admin_url or public,
            )
        else:
            result[endpoint.catalog_type] = ServiceEndpoints(url, url, url)
    return result


def _bootstrap(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    password = args.bootstrap_password or os.environ.get("OS_BOOTSTRAP_PASSWORD")
    if not password:
        raise ConfigError("--bootstrap-password (or OS_BOOTSTRAP_PASSWORD) is required")
    backend = IdentityBackend.from_conf(conf)
    try:
        sync(backend.engine)
        backend.keys.setup()
        result = bootstrap(
            backend,
            password=password,
            username=args.bootstrap_username,
            project_name=args.bootstrap_project_name,
            role_name=args.bootstrap_role_name,
            region_id=args.bootstrap_region_id,
            endpoints=catalog_endpoints(conf, args),
        )
    finally:
        backend.engine.dispose()
    print(
        f"Bootstrapped user {args.bootstrap_username} ({result.user_id}) with role "
        f"{args.bootstrap_role_name} on project {args.bootstrap_project_name} "
        f"({result.project_id}) and on the system."
    )
    return 0


def _fernet_setup(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    repo = key_repository(conf)
    created = repo.setup()
    print(f"{'Created' if created else 'Kept existing'} Fernet keys in {repo.path}")
    return 0


def _fernet_rotate(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    repo = key_repository(conf)
    primary = repo.rotate()
    print(f"Rotated Fernet keys in {repo.path}: key {primary} is now primary")
    return 0


def _db_sync(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    engine = make_identity_engine(conf)
    try:
        sync(engine)
    finally:
        engine.dispose()
    return 0


def _db_version(conf: cfg.ConfigOpts, args: argparse.Namespace) -> int:
    engine = make_identity_engine(conf)
    try:
        print(migration.current("identity", engine) or "None")
    finally:
        engine.dispose()
    return 0


def _add_bootstrap(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "bootstrap", help="Create the admin user, project, roles, region and catalog"
    )
    add = parser.add_argument
    add("--bootstrap-password", help="admin password (or OS_BOOTSTRAP_PASSWORD)")
    add("--bootstrap-username", default="admin", help="admin user name")
    add("--bootstrap-project-name", default="admin", help="admin project name")
    add("--bootstrap-role-name", default="admin", help="admin role name")
    add("--bootstrap-region-id", default="RegionOne", help="region of the endpoints")
    add("--bootstrap-admin-url", help="identity admin URL (default: the public URL)")
    add("--bootstrap-internal-url", help="identity internal URL (default: the public URL)")
    add("--bootstrap-public-url", help="identity public URL (default http://my_ip:5000/v3)")
    parser.set_defaults(func=_bootstrap)


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the identity commands to saphira-manage."""
    _add_bootstrap(subparsers)
    subparsers.add_parser("fernet_setup", help="Create the token key repository").set_defaults(
        func=_fernet_setup
    )
    subparsers.add_parser(
        "fernet_rotate", help="Rotate the token keys, keeping [identity] max_active_keys"
    ).set_defaults(func=_fernet_rotate)
    identity_db = subparsers.add_parser("identity_db", help="identity database schema")
    actions = identity_db.add_subparsers(dest="action", required=True, metavar="<action>")
    actions.add_parser("sync", help="Create or upgrade the identity tables").set_defaults(
        func=_db_sync
    )
    actions.add_parser("version", help="Print the identity database revision").set_defaults(
        func=_db_version
    )
