"""``saphira-api``: every HTTP API (identity, compute, image, placement) in one process.

The databases must be prepared first (``saphira-manage``); the compute API
reaches the conductor and compute hosts over ``[DEFAULT] transport_url``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from saphira.service.process import ApiService, run


def main(argv: Sequence[str] | None = None) -> int:
    return run("saphira-api", ApiService, argv)


if __name__ == "__main__":
    sys.exit(main())
