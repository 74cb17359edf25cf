"""The command's servers: flags first, then the test servers' variables; none is a clear error."""

from __future__ import annotations

import pytest

from saphira.devtools.testbed.bed import Servers
from saphira.devtools.testbed.cli import main, parser, servers
from saphira.devtools.testbed.errors import TestbedError

ENV = {
    "SAPHIRA_TEST_POSTGRESQL": "postgresql+psycopg://u:p@127.0.0.1:5432",
    "SAPHIRA_TEST_MARIADB": "mysql+pymysql://u:p@127.0.0.1:3306",
    "SAPHIRA_TEST_RABBIT": "rabbit://u:p@127.0.0.1:5672/v",
}


def test_the_servers_come_from_the_variables_or_the_flags() -> None:
    assert servers(parser().parse_args(["up"]), ENV) == Servers(
        ENV["SAPHIRA_TEST_POSTGRESQL"], ENV["SAPHIRA_TEST_RABBIT"]
    )
    mariadb = servers(parser().parse_args(["up", "--mariadb"]), ENV)
    assert mariadb is not None and mariadb.database == ENV["SAPHIRA_TEST_MARIADB"]
    flags = parser().parse_args(["up", "--database-url", "db://x", "--transport-url", "r://y"])
    assert servers(flags, {}) == Servers("db://x", "r://y")
    other = parser().parse_args(["up", "--rabbitmqctl", "env HOME=/h rabbitmqctl -n r@x"])
    assert servers(other, ENV) == Servers(
        ENV["SAPHIRA_TEST_POSTGRESQL"], ENV["SAPHIRA_TEST_RABBIT"],
        ("env", "HOME=/h", "rabbitmqctl", "-n", "r@x"),
    )  # fmt: skip
    assert servers(parser().parse_args(["up", "--no-controller"]), {}) is None
    assert servers(parser().parse_args(["down"]), {}) is None


def test_no_servers_is_a_clear_error() -> None:
    with pytest.raises(TestbedError, match="SAPHIRA_TEST_POSTGRESQL"):
        servers(parser().parse_args(["up"]), {})


def test_a_bad_name_fails_before_anything_is_made(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", "--name", "Bad-Name"]) == 1
    assert "bed name 'Bad-Name'" in capsys.readouterr().err
