"""Every database the cloud keeps, each an option group with a SQLAlchemy URL.

One table, because the sample file, the embedded defaults (an SQLite file
under state_path, named as the OpenStack service names its database) and the
tests that move every database to a server all need the same list.
"""

from __future__ import annotations

from dataclasses import dataclass

from oslo_config import cfg


@dataclass(frozen=True)
class Database:
    group: str
    what: str
    sqlite_name: str
    example: str  # user:PASS@host/name, as the install guides write it


DATABASES: tuple[Database, ...] = (
    Database("api_database", "the API database (cell mappings)", "nova_api.sqlite", "nova_api"),
    Database("database", "this cell's database", "nova.sqlite", "nova"),
    Database("identity_database", "the identity database", "keystone.sqlite", "keystone"),
    Database("image_database", "the image database", "glance.sqlite", "glance"),
    Database("placement_database", "the placement database", "placement.sqlite", "placement"),
    Database("network_database", "the network database", "neutron.sqlite", "neutron"),
)


def get(group: str) -> Database:
    return next(db for db in DATABASES if db.group == group)


def _opts(db: Database) -> list[cfg.Opt]:
    user = db.example.split("_")[0]
    return [
        cfg.StrOpt(
            "connection",
            secret=True,
            help=f"SQLAlchemy URL of {db.what}, e.g. "
            f"mysql+pymysql://{user}:PASS@controller/{db.example} or postgresql+psycopg://... "
            f"Empty: sqlite:///$state_path/{db.sqlite_name}.",
        ),
        cfg.IntOpt("connect_timeout", default=10, min=1, help="Seconds to wait for a connection."),
    ]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [
        (cfg.OptGroup(db.group, help=db.what.capitalize() + "."), _opts(db)) for db in DATABASES
    ]
