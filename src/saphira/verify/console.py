"""Layer 5: the guest's console log shows it booted (a kernel, an init, a login prompt)."""

from __future__ import annotations

import re

from saphira.guest_image.guest_init import BOOTED
from saphira.verify.model import Check

# What a booting Linux or BSD guest prints on its serial console (its kernel, its init,
# cloud-init, a login prompt), and the line Saphira's own tiny test image prints.
BOOT_SIGNS = re.compile(
    r"Linux version \S+|Run /\S*init|Freeing unused kernel|login:|Welcome to |"
    r"systemd\[1\]: |cloud-init\[\d+\]|Copyright \(c\) \d{4}.*(FreeBSD|OpenBSD|NetBSD)|"
    + re.escape(BOOTED)
)
TAIL = 160  # characters of the log shown when no sign was found


def check(log: str) -> Check:
    if not log.strip():
        return Check(False, "the console log is empty: the guest printed nothing")
    found = BOOT_SIGNS.search(log)
    if found is None:
        tail = " ".join(log.split())[-TAIL:]
        return Check(False, f"no kernel, init or login prompt in the console log; it ends: {tail}")
    return Check(True, f"console log shows {found.group(0)!r}")
