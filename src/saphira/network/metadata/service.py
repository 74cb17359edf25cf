"""The metadata agent and proxies of a DHCP agent, built from its options.

The proxies run as the agent's own user; an agent running as root gives
them ``nobody`` instead (nothing in a namespace that guests reach runs as
root), and the agent's socket is then owned by ``nobody`` so they may
connect.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import pwd
from pathlib import Path

from oslo_config import cfg

from saphira.clients.endpoints import service_locator
from saphira.clients.identity import PasswordToken
from saphira.clients.network import NetworkClient
from saphira.conf import endpoints
from saphira.network.metadata.agent import MetadataAgent
from saphira.network.metadata.batching import BatchingPorts
from saphira.network.metadata.proxies import MetadataProxies, ProxySettings
from saphira.network.metadata.resolver import CachedResolver, NetworkServicePorts, Resolver
from saphira.network.metadata.upstream import MetadataApi

LOG = logging.getLogger(__name__)
UNPRIVILEGED = "nobody"


@dataclasses.dataclass(frozen=True)
class Metadata:
    agent: MetadataAgent
    proxies: MetadataProxies


def proxy_user() -> tuple[int, int]:
    if os.geteuid() != 0:
        return os.geteuid(), os.getegid()
    nobody = pwd.getpwnam(UNPRIVILEGED)
    return nobody.pw_uid, nobody.pw_gid


def metadata_port(conf: cfg.ConfigOpts) -> int:
    port = conf.metadata_agent.nova_metadata_port
    return int(port) if port else endpoints.listen_port(conf, endpoints.by_type("metadata"))


def build(conf: cfg.ConfigOpts, resolver: Resolver | None = None) -> Metadata | None:
    """None when ``[neutron] service_metadata_proxy`` is off: no agent, no proxies."""
    if not conf.neutron.service_metadata_proxy:
        return None
    group = conf.metadata_agent
    if resolver is None:
        token = PasswordToken(conf.neutron)
        client = NetworkClient(service_locator(conf, "neutron", "network", token), token)
        resolver = BatchingPorts(NetworkServicePorts(client))
    uid, gid = proxy_user()
    socket = Path(group.metadata_proxy_socket)
    secret = conf.neutron.metadata_proxy_shared_secret
    if not secret:
        LOG.warning("[neutron] metadata_proxy_shared_secret is empty: the metadata API "
                    "will refuse every request the metadata agent signs")  # fmt: skip
    api = MetadataApi(group.nova_metadata_host, metadata_port(conf), secret)
    agent = MetadataAgent(
        socket,
        CachedResolver(resolver, group.cache_seconds),
        api,
        workers=group.metadata_workers,
        owner=(uid, gid) if os.geteuid() == 0 else None,
    )
    return Metadata(agent, MetadataProxies(ProxySettings(socket, uid, gid)))
