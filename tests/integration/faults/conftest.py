"""Fixtures of the fault tests: the process deployment's (a database, a RabbitMQ
virtual host of the test's own, a Deployment factory)."""

from __future__ import annotations

from tests.integration.deploy.conftest import deployment, rabbit_vhost
from tests.integration.up.test_up_on_servers import databases

__all__ = ["databases", "deployment", "rabbit_vhost"]
