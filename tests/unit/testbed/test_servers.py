"""The controller's databases and virtual host are named after the bed."""

from __future__ import annotations

from saphira.conf.database import DATABASES
from saphira.devtools.testbed.runner import Result
from saphira.devtools.testbed.servers import Databases, Vhost
from tests.unit.testbed.fakes import FakeRunner

RABBIT = "rabbit://saphira:secret@127.0.0.1:5672/saphira"


def test_every_database_group_gets_a_database_of_the_bed() -> None:
    urls = Databases("postgresql+psycopg://u:p@127.0.0.1:5432", "saphira_tb_dev").urls()
    assert set(urls) == {db.group for db in DATABASES}
    assert urls["database"] == "postgresql+psycopg://u:p@127.0.0.1:5432/saphira_tb_dev"
    assert urls["api_database"].endswith("/saphira_tb_dev_api_database")


def test_the_transport_url_goes_through_the_management_address() -> None:
    vhost = Vhost(RABBIT, "saphira_tb_dev", FakeRunner())
    assert vhost.url("10.150.0.1") == "rabbit://saphira:secret@10.150.0.1:5672/saphira_tb_dev"


def test_the_vhost_is_added_once_and_deleted_only_if_present() -> None:
    listed = Result(0, "/\nsaphira\nsaphira_tb_dev\n", "")
    runner = FakeRunner({("rabbitmqctl", "-q", "list_vhosts", "name"): listed})
    vhost = Vhost(RABBIT, "saphira_tb_dev", runner)
    vhost.create()
    assert not any("add_vhost" in call for call in runner.calls)
    vhost.delete()
    assert ["rabbitmqctl", "-q", "delete_vhost", "saphira_tb_dev"] in runner.calls
    other = Vhost(RABBIT, "saphira_tb_new", runner)
    other.delete()
    assert not any("saphira_tb_new" in call for call in runner.calls if "delete_vhost" in call)
    other.create()
    assert ["rabbitmqctl", "-q", "add_vhost", "saphira_tb_new"] in runner.calls


def test_another_broker_is_managed_by_its_own_command() -> None:
    ctl = ("env", "HOME=/scratch/home", "rabbitmqctl", "-n", "private@localhost")
    runner = FakeRunner({(*ctl, "-q", "list_vhosts", "name"): Result(0, "/\n", "")})
    Vhost(RABBIT, "saphira_tb_dev", runner, ctl).create()
    assert [*ctl, "-q", "add_vhost", "saphira_tb_dev"] in runner.calls
    assert all(call[: len(ctl)] == list(ctl) for call in runner.calls)
