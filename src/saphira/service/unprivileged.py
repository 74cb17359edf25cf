"""``saphira up`` started as root: only the privileged helper stays root.

Before any service thread starts, ``become`` makes sure the system user
(``saphira`` unless ``--user`` names another) exists (``useradd --system``,
in the groups that open ``qemu:///system`` and ``/dev/kvm``), hands it the
state directory, lets it reach its code and state (``reach``: a search-only
ACL entry where a directory such as ``/root`` blocks), starts the privileged
helper (``saphira.privsep.context``) and libvirt's daemons (``root_work``,
still as root), checks that a libvirt driver will open its URI as the user,
and then drops the process to that user for good: supplementary groups, gid,
uid, all three ids of each.
Open vSwitch, nftables, namespaces and dnsmasq are the helper's work from
then on; the services never regain root.
"""

from __future__ import annotations

import grp
import logging
import os
import pwd
import subprocess
import sys
from pathlib import Path

from oslo_config import cfg

from saphira.exception import SaphiraError
from saphira.privsep import context as privileged
from saphira.service import reach
from saphira.service.reach import Account
from saphira.virt import loader
from saphira.virt.libvirt import daemons
from saphira.virt.libvirt.machine import DaemonError

LOG = logging.getLogger(__name__)
GROUPS = ("libvirt", "kvm")  # qemu:///system's socket, /dev/kvm (where the host has them)
NOLOGIN = "/usr/sbin/nologin"


class DropError(SaphiraError):
    msg_fmt = "cannot run as user %(user)s: %(detail)s"


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
    """The state directory and what root made in it, owned by the account (links not followed).

    Files of other users stay theirs: a running guest's disks belong to
    QEMU's user while it runs (libvirt's dynamic ownership).
    """
    for top, dirs, files in os.walk(path):
        for name in (top, *(os.path.join(top, entry) for entry in (*dirs, *files))):
            if os.lstat(name).st_uid == 0:
                os.lchown(name, account.uid, account.gid)


def data_dirs(conf: cfg.ConfigOpts) -> list[str]:
    """Where the services write besides the state directory, when set outside it."""
    state = os.path.join(os.path.abspath(str(conf.state_path)), "")
    paths = (
        conf.instances_path,
        conf.glance_store.filesystem_store_datadir,
        conf.os_glance_staging_store.filesystem_store_datadir,
        conf.oslo_concurrency.lock_path,
    )
    found = [os.path.abspath(str(p)) for p in paths if p]
    return list(dict.fromkeys(p for p in found if not os.path.join(p, "").startswith(state)))


def give_data_dirs(conf: cfg.ConfigOpts, account: Account) -> list[str]:
    """Each data directory outside the state directory: made for the account, or already its.

    An existing one of another owner may hold what root made before (guest
    disks, images); changing it is the operator's call, so it is named.
    """
    paths = data_dirs(conf)
    for path in paths:
        if not os.path.lexists(path):
            os.makedirs(path, mode=0o711)
            os.lchown(path, account.uid, account.gid)
        elif os.lstat(path).st_uid != account.uid:
            raise DropError(
                user=account.name,
                detail=f"{path} (a data directory outside the state directory) is not its "
                f"own: chown -R {account.name}: {path}, or keep root with --user root",
            )
    return paths


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
            daemons.ensure_running(_uri(conf))
        except DaemonError as error:
            LOG.warning("libvirt's daemons: %s", error.message)


def _uri(conf: cfg.ConfigOpts) -> str:
    return str(conf.libvirt.connection_uri or daemons.DEFAULT_URI)


def check_libvirt(conf: cfg.ConfigOpts, account: Account) -> None:
    """A libvirt host's driver must open its URI as the account, or the drop would strand it.

    Asked with this interpreter and libvirt-python, as the driver will ask.
    """
    if str(conf.compute_driver) != loader.LIBVIRT:
        return
    uri = _uri(conf)
    code = "import sys, libvirt\nlibvirt.registerErrorHandler(lambda c, e: None, None)\n"
    code += "try:\n    libvirt.open(sys.argv[1]).close()\n"
    code += "except libvirt.libvirtError as error:\n    sys.exit(str(error))\n"
    done = reach.run_as(account, [sys.executable, "-c", code, uri])
    if done.returncode != 0:
        refused = done.stderr.strip().splitlines()[-1:] or [f"status {done.returncode}"]
        raise DropError(
            user=account.name,
            detail=f"{uri} refuses it ({refused[0]}); libvirtd must let the libvirt group in "
            '(polkit\'s rule on the system D-Bus, or unix_sock_group = "libvirt", '
            'unix_sock_rw_perms = "0770", auth_unix_rw = "none"), or keep root with '
            "--user root",
        )


def tls_files(conf: cfg.ConfigOpts) -> list[Path]:
    """The APIs load these [ssl] files after the drop."""
    return [Path(str(f)) for f in (conf.ssl.cert_file, conf.ssl.key_file, conf.ssl.ca_file) if f]


def check_tls_files(conf: cfg.ConfigOpts, account: Account) -> None:
    """The account must read every [ssl] file; its directories were granted with the rest."""
    refused = reach.unreadable(account, tls_files(conf))
    if refused:
        raise DropError(
            user=account.name,
            detail=f"it cannot read {', '.join(map(str, refused))} ([ssl]): give it the key "
            f"(e.g. chgrp {account.name} FILE; chmod 0640 FILE), or keep root with --user root",
        )


def grant_reach(paths: list[str], account: Account) -> None:
    try:
        granted = reach.ensure(account, reach.needed(*paths))
    except reach.ReachError as error:
        raise DropError(user=account.name, detail=str(error)) from None
    for directory in granted:
        LOG.warning(
            "gave user %s search permission on %s (ACL u:%s:x), on the way to its code or state",
            account.name, directory, account.name,
        )  # fmt: skip


def become(name: str, conf: cfg.ConfigOpts) -> Account:
    """As root: user, state directory, root's own work, then the drop."""
    if os.geteuid() != 0:
        raise DropError(user=name, detail="only root can change to another user")
    state_path = str(conf.state_path)
    account = ensure_user(name)
    hand_over(state_path, account)
    tls_dirs = [str(path.parent) for path in tls_files(conf)]
    grant_reach([state_path, *give_data_dirs(conf, account), *tls_dirs], account)
    check_tls_files(conf, account)
    root_work(conf, name)
    check_libvirt(conf, account)
    drop(account, home=state_path)  # caches (~/.cache) then live in the state directory
    LOG.info("running as %s (uid %d); the privileged helper stays root", name, account.uid)
    return account
