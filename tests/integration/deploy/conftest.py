"""Fixtures of the process deployment tests: a database server (each backend
in turn), a RabbitMQ virtual host of the test's own, and a Deployment."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.environment import server_url
from tests.integration.deploy.deployment import Deployment
from tests.integration.up.test_up_on_servers import databases
from tests.scratch import traversable_dir

__all__ = ["databases", "deployment", "rabbit_vhost"]
CTL = "rabbitmqctl"


def _ctl(*args: str) -> None:
    subprocess.run([CTL, "-q", *args], check=True, capture_output=True, text=True, timeout=60)


@pytest.fixture
def rabbit_vhost() -> Iterator[str]:
    """SAPHIRA_TEST_RABBIT's broker and user on a fresh virtual host, deleted afterwards.

    Queues are named after topics (``conductor``, ``scheduler``), whatever the
    exchange, so only a virtual host keeps concurrent deployments apart.
    """
    parsed = urlsplit(server_url("SAPHIRA_TEST_RABBIT"))
    vhost = f"saphira_{uuid.uuid4().hex[:10]}"
    try:
        _ctl("add_vhost", vhost)
        _ctl("set_permissions", "-p", vhost, str(parsed.username), ".*", ".*", ".*")
    except (OSError, subprocess.SubprocessError) as error:
        detail = getattr(error, "stderr", None) or error
        pytest.fail(f"cannot create a RabbitMQ virtual host with {CTL}: {detail}")
    try:
        yield urlunsplit(parsed._replace(path=f"/{vhost}"))
    finally:
        _ctl("delete_vhost", vhost)


@contextmanager
def deployments(
    databases: dict[str, str], rabbit: str, prefix: str = "saphira-deploy-"
) -> Iterator[Callable[..., Deployment]]:
    """A factory: ``make(extra_conf)`` a deployment on these databases and this
    broker, prepared (not started); each stopped afterwards.

    Its directory is one the saphira user can pass through (pytest's are 0700).
    """
    made: list[Deployment] = []
    with traversable_dir(prefix) as root:

        def make(extra: dict[str, dict[str, object]] | None = None) -> Deployment:
            found = Deployment(root, databases, rabbit, dict(extra or {}))
            made.append(found)
            found.prepare()
            return found

        yield make
        for found in made:
            found.stop_all()


@pytest.fixture
def deployment(databases: dict[str, str], rabbit_vhost: str) -> Iterator[Callable[..., Deployment]]:
    """``deployments``' factory on the test's databases and virtual host."""
    with deployments(databases, rabbit_vhost) as make:
        yield make
