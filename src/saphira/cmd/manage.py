"""saphira-manage."""

from __future__ import annotations

import sys

from saphira.manage.main import main as manage_main


def main() -> None:
    sys.exit(manage_main())


if __name__ == "__main__":
    main()
