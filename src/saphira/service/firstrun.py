"""Everything ``saphira up`` makes sure of before it serves, first start or not.

Each step is idempotent, so the same code runs on every start: a first start
creates, a later one finds everything in place and keeps it (data, passwords,
keys). The order is the install guide's: API database, cell0, cell1, cell
databases, identity database, keys, bootstrap, then the client files.
"""

from __future__ import annotations

import logging
import os

from oslo_config import cfg

from saphira.conf.ssl import ca_bundle
from saphira.db import cells
from saphira.db.identity import make_identity_engine
from saphira.db.identity import sync as identity_sync
from saphira.db.image import make_image_engine
from saphira.db.image import sync as image_sync
from saphira.identity.backend import key_repository
from saphira.service import clientconf, identity_seed, registry, statedir

LOG = logging.getLogger(__name__)
CELL1 = "cell1"


def _identity_url(conf: cfg.ConfigOpts) -> str:
    return registry.public_url(conf, registry.by_type("identity"))


def prepare_state_dir(conf: cfg.ConfigOpts) -> str | None:
    """Create the state directory; write saphira.conf on first start (its path, or None)."""
    statedir.ensure_dir(conf.state_path)
    identity = _identity_url(conf)
    root = identity[: -len("/v3")] + "/" if identity.endswith("/v3") else identity
    initial = statedir.InitialConf(conf.state_path, root, conf.region_name)
    return statedir.write_initial_conf(initial)


def prepare_databases(conf: cfg.ConfigOpts) -> None:
    """api_db sync, map_cell0, create_cell cell1, db sync (cell0 and cell1).

    An existing cell1 is kept as it is: an operator who later points
    [database] or transport_url elsewhere updates the mapping with
    ``saphira-manage cell_v2 update_cell``, not by restarting.
    """
    cells.api_db_sync(conf)
    cell0, created0 = cells.map_cell0(conf)
    cell1 = cells.find_cell(conf, CELL1)
    created1 = cell1 is None
    if cell1 is None:
        cell1, _ = cells.create_cell(conf, name=CELL1)
    for cell, created in ((cell0, created0), (cell1, created1)):
        LOG.info("cell %s (%s): %s", cell.name, cell.uuid, "mapped" if created else "present")
    cells.db_sync(conf)


def prepare_identity(conf: cfg.ConfigOpts) -> list[clientconf.Cloud]:
    """Identity schema, Fernet keys, bootstrap; the admin and demo credentials."""
    engine = make_identity_engine(conf)
    try:
        identity_sync(engine)
        if key_repository(conf).setup():
            LOG.info("Fernet keys created in %s", conf.identity.key_repository)
        clouds_path = os.path.join(conf.state_path, clientconf.CLOUDS_NAME)
        known = clientconf.read_passwords(clouds_path)
        passwords = {name: known.get(name) or statedir.new_password() for name in ("admin", "demo")}
        endpoints = {
            spec.catalog_type: registry.public_url(conf, spec) for spec in registry.catalog()
        }
        identity_seed.seed(conf, engine, passwords, endpoints)
    finally:
        engine.dispose()
    return [clientconf.Cloud(name, name, passwords[name], name) for name in ("admin", "demo")]


def prepare_image(conf: cfg.ConfigOpts) -> None:
    """The image database schema (glance-manage db_sync)."""
    engine = make_image_engine(conf)
    try:
        image_sync(engine)
    finally:
        engine.dispose()


def prepare_placement(conf: cfg.ConfigOpts) -> None:
    """The placement schema (its own database, as Placement has)."""
    from saphira.db.placement import make_placement_engine
    from saphira.db.placement import sync as placement_sync

    engine = make_placement_engine(conf)
    try:
        placement_sync(engine)
    finally:
        engine.dispose()


def prepare_network(conf: cfg.ConfigOpts) -> None:
    """The network schema (neutron-db-manage upgrade heads)."""
    from saphira.db.network import make_network_engine
    from saphira.db.network import sync as network_sync

    engine = make_network_engine(conf)
    try:
        network_sync(engine)
    finally:
        engine.dispose()


def prepare(conf: cfg.ConfigOpts) -> None:
    """Run every step after the state directory exists (see prepare_state_dir)."""
    prepare_databases(conf)
    prepare_image(conf)
    prepare_placement(conf)
    prepare_network(conf)
    clouds = prepare_identity(conf)
    clientconf.write_client_files(
        conf.state_path, clouds, _identity_url(conf), conf.region_name, ca_bundle(conf)
    )
