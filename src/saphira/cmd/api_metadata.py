"""``saphira-api-metadata``: the metadata API alone (Nova's ``nova-api-metadata``).

Guests reach it through their network's metadata proxy; the API and cell
databases must be prepared first (``saphira-manage``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from oslo_config import cfg

from saphira.service.process import ApiService, run


def _metadata(conf: cfg.ConfigOpts) -> ApiService:
    return ApiService(conf, only=("metadata",))


def main(argv: Sequence[str] | None = None) -> int:
    return run("saphira-api-metadata", _metadata, argv)


if __name__ == "__main__":
    sys.exit(main())
