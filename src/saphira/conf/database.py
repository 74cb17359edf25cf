"""[api_database], [database] and [identity_database]: SQLAlchemy URLs.

Empty means the embedded default: an SQLite file under state_path.
"""

from __future__ import annotations

from oslo_config import cfg

api_database = cfg.OptGroup("api_database", help="The API database (cell mappings).")
database = cfg.OptGroup("database", help="This cell's database.")
identity_database = cfg.OptGroup("identity_database", help="The identity database.")


def _opts(what: str, sqlite_name: str) -> list[cfg.Opt]:
    return [
        cfg.StrOpt(
            "connection",
            secret=True,
            help=f"SQLAlchemy URL of {what}, e.g. mysql+pymysql://nova:PASS@controller/nova "
            f"or postgresql+psycopg://... Empty: sqlite:///$state_path/{sqlite_name}.",
        ),
        cfg.IntOpt("connect_timeout", default=10, min=1, help="Seconds to wait for a connection."),
    ]


_GROUPS = [
    (api_database, _opts("the API database", "nova_api.sqlite")),
    (database, _opts("the cell database", "nova.sqlite")),
    (identity_database, _opts("the identity database", "keystone.sqlite")),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return list(_GROUPS)
