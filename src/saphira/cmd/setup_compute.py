"""saphira-openstack-setup-compute: join this host to a controller (saphira.join)."""

from __future__ import annotations

import sys

from saphira.join.cli import main as join_main


def main() -> None:
    sys.exit(join_main())


if __name__ == "__main__":
    main()
