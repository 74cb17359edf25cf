"""``saphira-dashboard``: the web dashboard alone, for a scale-out controller.

It reaches the cloud only through its public APIs: the identity service of
``[dashboard] identity_url`` (this host's own when unset) and the catalog.
Sessions live in this process's memory: behind a load balancer, keep a
browser on one process (sticky sessions).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from oslo_config import cfg

from saphira.service.process import ApiService, run


def _dashboard(conf: cfg.ConfigOpts) -> ApiService:
    return ApiService(conf, only=("dashboard",))


def main(argv: Sequence[str] | None = None) -> int:
    return run("saphira-dashboard", _dashboard, argv)


if __name__ == "__main__":
    sys.exit(main())
