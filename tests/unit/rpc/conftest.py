from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from oslo_config import cfg

from saphira.conf import make_conf
from saphira.rpc.transport import get_rpc_transport


@pytest.fixture
def conf() -> cfg.ConfigOpts:
    """A conf on a private in-process bus, so tests never see each other's messages."""
    conf = make_conf()
    conf([])
    conf.set_override("transport_url", f"inproc:///test-{uuid.uuid4().hex}")
    return conf


@pytest.fixture
def transport(conf: cfg.ConfigOpts) -> Iterator[Any]:
    transport = get_rpc_transport(conf)
    yield transport
    transport.cleanup()
