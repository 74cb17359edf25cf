"""What the all-in-one imports: nothing it never runs.

Checked in a fresh interpreter that imports every module ``saphira up``
builds its services from (the service registry's apps, the control plane,
the privileged helper's client side).
"""

from __future__ import annotations

import subprocess
import sys

MODULES = (
    "saphira.cmd.up",
    "saphira.service.plane",
    "saphira.api.compute",
    "saphira.api.identity",
    "saphira.api.image",
    "saphira.api.network",
    "saphira.api.placement",
    "saphira.privsep.context",
    "saphira.rpc.transport",
)
PROBE = f"""
import importlib, sys
for name in {MODULES!r}:
    importlib.import_module(name)
print(sorted(n for n in ("eventlet", "dns", "greenlet") if sys.modules.get(n) is not None))
"""


def test_the_all_in_one_never_imports_eventlet() -> None:
    # oslo.privsep, futurist and oslo.utils would import it (and dnspython's
    # patched copies with it) only to learn that nothing was monkey-patched.
    found = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    assert found.stdout.strip() == "[]", found.stderr
