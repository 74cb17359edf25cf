"""Saphira: a compact OpenStack-compatible compute cloud."""

import sys

__version__ = "0.1.0"

# Saphira runs threads, never eventlet (oslo.service's threading backend), yet
# oslo.privsep, futurist and oslo.utils import eventlet when they can, only to
# learn whether it monkey-patched. Refusing the import takes their "no
# eventlet" branch and keeps eventlet, its asyncio use and its patched copies
# of dnspython (about 300 modules, 17 MiB) out of every Saphira process.
sys.modules.setdefault("eventlet", None)  # type: ignore[arg-type]
