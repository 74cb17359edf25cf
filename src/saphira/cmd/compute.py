"""``saphira-compute``: one compute host ([DEFAULT] host, [DEFAULT] compute_driver).

It talks to the conductor over [DEFAULT] transport_url and to placement as
the [placement] user; it has no database access.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from oslo_config import cfg

from saphira.service.process import PlaneService, run


def _start(conf: cfg.ConfigOpts) -> PlaneService:
    return PlaneService(conf, "compute")


def main(argv: Sequence[str] | None = None) -> int:
    return run("saphira-compute", _start, argv)


if __name__ == "__main__":
    sys.exit(main())
