"""The configuration Saphira gives a libvirt daemon it starts itself.

Debian's libvirt authorizes the read-write socket through polkit, which
answers over the system D-Bus. Under systemd both are there and polkit lets
the ``libvirt`` group in; where PID 1 is not systemd (containers, CI) there
is no system bus, and nobody but root can open ``qemu:///system``. The
services run as the unprivileged ``saphira`` user (a member of ``libvirt``),
so a daemon Saphira starts itself (``daemons._start_daemons``) reads this
file instead: the sockets belong to the ``libvirt`` group, read-write for it
alone (0770), and the socket's permissions are the authorization, as in
libvirt's own "unix socket without polkit" set-up. The file lives in the
run directory, written anew on every start; it sets nothing else, so every
other setting keeps libvirt's built-in default (which is what Debian's
packaged, fully commented-out file amounts to).
"""

from __future__ import annotations

import grp
import os
from pathlib import Path

GROUP = "libvirt"
SETTINGS = (
    ("unix_sock_group", f'"{GROUP}"'),
    ("unix_sock_rw_perms", '"0770"'),
    ("unix_sock_ro_perms", '"0777"'),
    ("auth_unix_rw", '"none"'),
    ("auth_unix_ro", '"none"'),
)


def render() -> str:
    lines = ["# Written by Saphira for a daemon it started; see saphira.virt.libvirt.socket_conf"]
    return "\n".join([*lines, *(f"{key} = {value}" for key, value in SETTINGS)]) + "\n"


def group_exists(name: str = GROUP) -> bool:
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True


def write(directory: Path, daemon: str) -> Path | None:
    """``<directory>/<daemon>.conf`` (root's, 0644), or None where the host has no libvirt group."""
    if not group_exists():
        return None
    directory.mkdir(mode=0o755, parents=True, exist_ok=True)
    path = directory / f"{daemon}.conf"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(render())
    os.chmod(tmp, 0o644)
    tmp.replace(path)
    return path
