import sys

from saphira.devtools.testbed.cli import main

sys.exit(main())
