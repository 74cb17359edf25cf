"""``saphira up --user NAME`` started as root: only the privileged helper stays root.

Before any service thread starts, ``become`` makes sure the system user
exists (``useradd --system``, in the groups that open ``qemu:///system`` and
``/dev/kvm``), hands it the state directory, starts the privileged helper
(``saphira.privsep.context``) and libvirt's daemons (``root_work``, still as
root) and then drops the process to that user for good: supplementary
groups, gid, uid, all three ids of each.
Open vSwitch, nftables, namespaces and dnsmasq are the helper's work from
then on; the services never regain root.
"""

from __future__ import annotations

import grp
import logging
import os
import pwd
import subprocess
from dataclasses import dataclass

from oslo_config import cfg

from saphira.exception import SaphiraError
from saphira.privsep import context as privileged
from saphira.virt import loader
from saphira.virt.libvirt import daemons
from saphira.virt.libvirt.machine import DaemonError

LOG = logging.getLogger(__name__)
GROUPS = ("libvirt", "kvm")  # qemu:///system's socket, /dev/kvm (where the host has them)
NOLOGIN = "/usr/sbin/nologin"


class DropError(SaphiraError):
    msg_fmt = "cannot run as user %(user)s: %(detail)s"


@dataclass(frozen=True)
class Account:
    name: str
    uid: int
    gid: int
    groups: tuple[int, ...]


def ensure_user(name: str) -> Account:
    """The system user (created if missing), a member of each of GROUPS the host has."""
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        _tool(name, "useradd", "--system", "--user-group", "--no-create-home",
              "--home-dir", "/nonexistent", "--shell", NOLOGIN, name)  # fmt: skip
        entry = pwd.getpwnam(name)
    for group in GROUPS:
        try:
            members = grp.getgrnam(group).gr_mem
        except KeyError:
            continue
        if name not in members:
            _tool(name, "usermod", "--append", "--groups", group, name)
    groups = tuple(os.getgrouplist(name, entry.pw_gid))
    return Account(name, entry.pw_uid, entry.pw_gid, groups)


def _tool(user: str, *argv: str) -> None:
    try:
        subprocess.run(argv, capture_output=True, text=True, check=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        detail = getattr(error, "stderr", None) or str(error)
        raise DropError(user=user, detail=f"{argv[0]}: {str(detail).strip()}") from None


def hand_over(path: str, account: Account) -> None:
    """The state directory and everything in it, owned by the account (links not followed)."""
    os.lchown(path, account.uid, account.gid)
    for top, dirs, files in os.walk(path):
        for name in (*dirs, *files):
            os.lchown(os.path.join(top, name), account.uid, account.gid)


def drop(account: Account, home: str) -> None:
    """For good: real, effective and saved ids all become the account's."""
    os.setgroups(list(account.groups))
    os.setresgid(account.gid, account.gid, account.gid)
    os.setresuid(account.uid, account.uid, account.uid)
    if os.getresuid() != (account.uid,) * 3 or os.getresgid() != (account.gid,) * 3:
        raise DropError(user=account.name, detail="the ids did not change")
    try:
        os.setuid(0)
    except PermissionError:
        pass
    else:
        raise DropError(user=account.name, detail="root could be regained")
    os.environ.update(USER=account.name, LOGNAME=account.name, HOME=home)


def root_work(conf: cfg.ConfigOpts, user: str) -> None:
    """What must happen while still root: the helper starts, libvirt's daemons run.

    The helper keeps only network capabilities, too few to start libvirtd,
    so a libvirt host's daemons are started here (where systemd does not
    already run them) and ``compute_driver`` is decided once, as root.
    """
    why = privileged.unavailable_reason()
    if why is not None:
        raise DropError(user=user, detail=why)
    name = str(conf.compute_driver)
    if name == loader.FAKE:
        return
    if name == loader.AUTO:
        name, reason = loader.resolve_driver_name(conf)
        LOG.info("compute driver: %s (%s), decided before dropping root", name, reason)
        conf.set_override("compute_driver", name)
    elif name == loader.LIBVIRT:
        try:
            daemons.ensure_running(conf.libvirt.connection_uri or daemons.DEFAULT_URI)
        except DaemonError as error:
            LOG.warning("libvirt's daemons: %s", error.message)


def become(name: str, conf: cfg.ConfigOpts) -> Account:
    """As root: user, state directory, root's own work, then the drop."""
    if os.geteuid() != 0:
        raise DropError(user=name, detail="only root can change to another user")
    state_path = str(conf.state_path)
    account = ensure_user(name)
    hand_over(state_path, account)
    root_work(conf, name)
    drop(account, home=state_path)  # caches (~/.cache) then live in the state directory
    LOG.info("running as %s (uid %d); the privileged helper stays root", name, account.uid)
    return account
