"""Fresh databases on the real servers (the fixtures of tests/integration/db)."""

from tests.integration.db.conftest import create_database, prefix, server

__all__ = ["create_database", "prefix", "server"]
