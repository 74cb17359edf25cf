"""What the compute API holds for its lifetime: the cell directory, policy,
quota defaults, and where its neighbours are.

The directory is the process's (``CellDirectory.shared``: in ``saphira up``
the same instance as the conductor's and the scheduler's); it opens cell
database engines on first use and keeps them, one per connection URL, so
listing services or hypervisors does not reconnect per request.
"""

from __future__ import annotations

from dataclasses import dataclass

from oslo_config import cfg
from sqlalchemy.engine import Engine

from saphira.api.compute.backend import RpcBackend, ServerBackend
from saphira.clients.endpoints import service_url
from saphira.clients.image import CallerImages, Images
from saphira.computesvc import CellDirectory
from saphira.computesvc.quota import QuotaEngine
from saphira.policy import Enforcer


@dataclass
class ComputeState:
    conf: cfg.ConfigOpts
    directory: CellDirectory
    enforcer: Enforcer
    quota: QuotaEngine
    # The conductor/compute bus, the image service and the network service's URL
    # (tests swap these in; the network service is asked with the caller's token).
    backend: ServerBackend | None = None
    images: Images | None = None
    network_url: str | None = None

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> ComputeState:
        return cls(
            conf, CellDirectory.shared(conf), Enforcer(conf), QuotaEngine.from_conf(conf),
            backend=RpcBackend(conf), images=CallerImages.from_conf(conf),
            network_url=service_url(conf, "neutron", "network"),
        )  # fmt: skip

    @property
    def servers(self) -> ServerBackend:
        assert self.backend is not None, "no server backend configured"
        return self.backend

    @property
    def image_service(self) -> Images:
        assert self.images is not None, "no image service configured"
        return self.images

    @property
    def api_engine(self) -> Engine:
        return self.directory.api_engine

    def dispose(self) -> None:
        self.directory.dispose()
