"""The controller's share of the database server and of RabbitMQ: a database per
group and a virtual host, named after the bed (``saphira_tb_<bed>...``), made
if missing and dropped by ``down``.

Queues are named by topic (``conductor``, ``scheduler``), so only a virtual
host keeps two beds on one broker apart; MariaDB's test user is granted
``saphira\\_%`` databases only, hence the prefix.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from saphira.conf.database import DATABASES
from saphira.devtools.testbed.errors import TestbedError
from saphira.devtools.testbed.runner import Runner


@dataclass(frozen=True)
class Databases:
    base: str  # the server's URL, no database
    prefix: str

    def urls(self) -> dict[str, str]:
        """The database URL of each group (``database`` is the cell's; its cell0 is derived)."""
        names = {db.group: f"{self.prefix}_{db.group}" for db in DATABASES}
        names["database"] = self.prefix  # the cell's: its cell0 is named after it
        return {
            group: make_url(self.base).set(database=name).render_as_string(hide_password=False)
            for group, name in names.items()
        }

    def _names(self) -> list[str]:
        return [str(make_url(url).database) for url in self.urls().values()] + [
            f"{self.prefix}_cell0"
        ]

    def create(self) -> None:
        with _admin(self.base) as conn:
            present = _present(conn)
            for name in self._names():
                if name not in present:
                    conn.execute(sa.text(f"CREATE DATABASE {_quote(conn, name)}"))

    def drop(self) -> None:
        with _admin(self.base) as conn:
            force = " WITH (FORCE)" if conn.dialect.name == "postgresql" else ""
            for name in self._names():
                conn.execute(sa.text(f"DROP DATABASE IF EXISTS {_quote(conn, name)}{force}"))


def _quote(conn: sa.Connection, name: str) -> str:
    return conn.dialect.identifier_preparer.quote_identifier(name)


def _present(conn: sa.Connection) -> set[str]:
    if conn.dialect.name == "postgresql":
        return {str(row[0]) for row in conn.execute(sa.text("SELECT datname FROM pg_database"))}
    return set(sa.inspect(conn).get_schema_names())


@contextlib.contextmanager
def _admin(base: str) -> Iterator[sa.Connection]:
    """An autocommit connection to the server; its failures become TestbedError."""
    url = make_url(base)
    if url.get_backend_name() == "postgresql":
        url = url.set(database="postgres")
    try:
        engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    except (sa.exc.SQLAlchemyError, ImportError) as error:
        raise TestbedError(detail=f"database server {url!r}: {error}") from None
    try:
        with engine.connect() as conn:
            yield conn
    except sa.exc.SQLAlchemyError as error:
        raise TestbedError(detail=f"database server: {error}") from None
    finally:
        engine.dispose()


RABBITMQCTL = ("rabbitmqctl",)  # what manages the broker unless told otherwise


@dataclass(frozen=True)
class Vhost:
    base: str  # SAPHIRA_TEST_RABBIT's URL
    name: str
    runner: Runner
    ctl: tuple[str, ...] = RABBITMQCTL  # the command that manages that broker

    def url(self, host: str) -> str:
        """The transport URL through ``host`` (the controller's management address)."""
        parsed = urlsplit(self.base)
        credentials = parsed.netloc.rsplit("@", 1)[0]
        return urlunsplit(
            parsed._replace(netloc=f"{credentials}@{host}:5672", path=f"/{self.name}")
        )

    def create(self) -> None:
        listed = self.runner.run([*self.ctl, "-q", "list_vhosts", "name"]).out.split()
        if self.name not in listed:
            self.runner.run([*self.ctl, "-q", "add_vhost", self.name])
        user = str(urlsplit(self.base).username)
        self.runner.run(
            [*self.ctl, "-q", "set_permissions", "-p", self.name, user, ".*", ".*", ".*"]
        )

    def delete(self) -> None:
        listed = self.runner.run([*self.ctl, "-q", "list_vhosts", "name"], check=False)
        if self.name in listed.out.split():
            self.runner.run([*self.ctl, "-q", "delete_vhost", self.name])
