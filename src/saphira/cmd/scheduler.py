"""``saphira-scheduler``: host selection and placement claims, served on topic
``scheduler`` over [DEFAULT] transport_url."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from oslo_config import cfg

from saphira.service.process import PlaneService, run


def _start(conf: cfg.ConfigOpts) -> PlaneService:
    return PlaneService(conf, "scheduler")


def main(argv: Sequence[str] | None = None) -> int:
    return run("saphira-scheduler", _start, argv)


if __name__ == "__main__":
    sys.exit(main())
