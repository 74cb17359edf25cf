"""A statement over a list of ids (a listing's page of uuids), bound as one parameter.

An expanding ``IN`` binds one parameter per id: at every execution SQLAlchemy
renders the list into the statement's text and the database parses it again,
about a millisecond per statement for a page of 1,000 uuids on SQLite. There
the list goes instead as one JSON array text that ``json_each`` reads (SQLite's
JSON functions are built in since 3.38; ``JSON_EACH`` below asks the library
once); the plan still looks each id up in the column's index. Other databases,
and an SQLite without them, keep the expanding ``IN``. Both statements are
built once, and select the same rows.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.common import fastjson

__all__ = ["IDS", "ByIds"]

IDS = "ids"  # the parameter's name in both statements


@functools.cache
def json_each() -> bool:
    """Whether this process's SQLite library has json_each (the driver's own library)."""
    try:
        with sqlite3.connect(":memory:") as probe:
            probe.execute("SELECT value FROM json_each('[]')").fetchall()
    except sqlite3.Error:
        return False
    return True


@dataclass(frozen=True)
class ByIds:
    """One statement in its two forms; ``build`` receives what a column is ``IN``."""

    expanding: sa.Executable
    listed: sa.Executable  # the ids as one JSON array, read by json_each (SQLite)

    @classmethod
    def of(cls, build: Callable[[Any], sa.Executable]) -> ByIds:
        listed = sa.select(sa.func.json_each(sa.bindparam(IDS)).table_valued("value").c.value)
        return cls(build(sa.bindparam(IDS, expanding=True)), build(listed))

    def execute(
        self, where: sa.Connection | Session, ids: Sequence[str]
    ) -> sa.Result[*tuple[Any, ...]]:
        """The statement's rows for ``ids`` (the form ``where``'s database reads fastest)."""
        dialect = where.dialect if isinstance(where, sa.Connection) else where.get_bind().dialect
        if dialect.name == "sqlite" and json_each():
            return where.execute(self.listed, {IDS: fastjson.dumps(list(ids)).decode()})
        return where.execute(self.expanding, {IDS: list(ids)})
