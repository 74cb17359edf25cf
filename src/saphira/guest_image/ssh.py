"""The guest's SSH server: Debian's dropbear, with the shared libraries it loads.

Debian's busybox-static has no SSH server applet, so the image takes
``dropbear-bin`` and, from their own .debs, the loader and libraries its two
programs need (their ELF NEEDED entries, libtomcrypt's libgmp included). The
guest's init makes an ed25519 host key when it boots (the initramfs is the
guest's whole root, so each boot is a first boot) and starts dropbear on port
22 with password logins off: root gets in only with a key from the metadata
service or the config drive (``/root/.ssh/authorized_keys``).
"""

from __future__ import annotations

import os
from pathlib import Path

from saphira.guest_image import cpio

PORT = 22
PACKAGES = ("dropbear-bin", "libc6", "libcrypt1", "libtomcrypt1", "libtommath1", "libgmp10",
            "zlib1g")  # fmt: skip
LIB = "lib/x86_64-linux-gnu"
# Where each file is in the unpacked packages -> where the guest has it.
FILES = {
    "usr/sbin/dropbear": "bin/dropbear",
    "usr/bin/dropbearkey": "bin/dropbearkey",
    f"{LIB}/ld-linux-x86-64.so.2": "lib64/ld-linux-x86-64.so.2",  # the programs' interpreter
    f"{LIB}/libc.so.6": f"{LIB}/libc.so.6",
    f"{LIB}/libcrypt.so.1": f"{LIB}/libcrypt.so.1",
    f"{LIB}/libz.so.1": f"{LIB}/libz.so.1",
    f"usr/{LIB}/libtomcrypt.so.1": f"{LIB}/libtomcrypt.so.1",
    f"usr/{LIB}/libtommath.so.1": f"{LIB}/libtommath.so.1",
    f"usr/{LIB}/libgmp.so.10": f"{LIB}/libgmp.so.10",
}
DIRECTORIES = ("lib64", "lib/x86_64-linux-gnu", "etc/dropbear")
HOST_KEY = "/etc/dropbear/dropbear_ed25519_host_key"

# Run by the guest's init once the keys are in place (busybox sh; ``say`` prints a marker).
START = f"""dropbearkey -t ed25519 -f {HOST_KEY} > /dev/null 2>/var/log/dropbearkey
if dropbear -s -E -r {HOST_KEY} -P /run/dropbear.pid -p {PORT} 2>/var/log/dropbear; then
  say "ssh listening on {PORT} $(dropbearkey -y -f {HOST_KEY} | grep '^Fingerprint')"
else
  say "ssh failed: $(cat /var/log/dropbearkey /var/log/dropbear | tr '\\n' ' ')"
fi
"""


def _real(root: Path, relative: str) -> Path:
    """The file ``relative`` names inside ``root``, symlinks (even absolute ones) followed there."""
    path = root / relative
    for _ in range(16):
        if not path.is_symlink():
            return path
        target = os.readlink(path)
        path = root / target.lstrip("/") if target.startswith("/") else path.parent / target
    raise ValueError(f"{relative}: too many symlinks")


def entries(root: Path) -> list[cpio.Entry]:
    """The initramfs entries of the SSH server, read from the unpacked packages in ``root``."""
    found = [cpio.directory(d) for d in DIRECTORIES]
    for source, target in FILES.items():
        found.append(cpio.file(target, _real(root, source).read_bytes(), 0o755))
    found.append(cpio.file("etc/shells", b"/bin/sh\n"))
    found.append(cpio.file("etc/nsswitch.conf", b"passwd: files\ngroup: files\n"))
    found.append(cpio.file("etc/group", b"root:x:0:\n"))
    return found
