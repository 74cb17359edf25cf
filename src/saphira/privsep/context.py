"""The privileged helper: one oslo.privsep context and its typed entry points.

Every root operation is a function decorated with ``entrypoint`` in one of
the named modules (``netns``, ``links``, ``bridge``, ``ovs``, ``nft``,
``dnsmasq``, ``ovs_watch``). Called in a service, it is sent over a unix
socket to the helper daemon, which imports it by name, refuses it unless it
is one of this context's entry points (oslo.privsep's own check), validates
its arguments (``privsep.validate``) and only then runs its fixed command.

The helper is started on first use by exec, not fork: forking a process that
already runs threads (every Saphira service does) may copy a held lock.
``helper_command`` runs ``python -m saphira.privsep.helper`` directly when
the caller is root (``saphira up`` before it drops to its user, tests) and
``sudo -n python -I -m saphira.privsep.helper`` otherwise (etc/sudoers.d);
the helper accepts exactly that command line (``helper.check_arguments``).
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, cast

with warnings.catch_warnings():
    # oslo.privsep imports eventlet (to detect monkey patching), which warns on import.
    warnings.simplefilter("ignore")
    from oslo_config import cfg
    from oslo_privsep import capabilities as caps
    from oslo_privsep import daemon, priv_context

from saphira.privsep.errors import PrivsepError

P = ParamSpec("P")
R = TypeVar("R")
CONTEXT = "saphira.privsep.context.default"
SECTION = "saphira_privsep"
# What the helper's commands need, and nothing else: links, bridges, OVS, nftables
# (NET_ADMIN), namespaces (SYS_ADMIN: ip netns add/exec mount and setns), dnsmasq
# (binds port 67, raw sockets, drops to "nobody"), signals to dnsmasq (KILL) and
# files in the services' own directories (DAC_OVERRIDE). The helper also drops every
# other capability from its bounding set, so the commands it runs get no more.
CAPABILITIES = (
    caps.CAP_NET_ADMIN,
    caps.CAP_NET_RAW,
    caps.CAP_NET_BIND_SERVICE,
    caps.CAP_NET_BROADCAST,
    caps.CAP_SYS_ADMIN,
    caps.CAP_DAC_OVERRIDE,
    caps.CAP_KILL,
    caps.CAP_SETUID,
    caps.CAP_SETGID,
    caps.CAP_SYS_NICE,
    caps.CAP_IPC_LOCK,
)
# Long-polls (ovs_watch) hold a helper thread each; a few agents per process at most.
THREAD_POOL_SIZE = 16


def helper_argv(sockpath: str, *, root: bool) -> list[str]:
    """The helper's fixed command line (the sudoers rule names it, but for the socket)."""
    if root:  # root to root: the same interpreter, flags and environment
        command = [sys.executable, *(["-S"] if sys.flags.no_site else [])]
    else:  # -I: neither the caller's directory nor its environment reaches root
        command = ["sudo", "-n", sys.executable, "-I"]
    return [*command, "-m", "saphira.privsep.helper",
            "--privsep_context", CONTEXT, "--privsep_sock_path", sockpath]  # fmt: skip


class _Context(priv_context.PrivContext):
    def helper_command(self, sockpath: str) -> list[str]:
        return helper_argv(sockpath, root=os.geteuid() == 0)

    def start(self, method: priv_context.Method = priv_context.Method.ROOTWRAP) -> None:
        """A helper that cannot start is a PrivsepError, as any failed root operation."""
        with warnings.catch_warnings():
            # oslo.privsep lets the write end of the helper's stderr pipe go unclosed.
            warnings.simplefilter("ignore", ResourceWarning)
            try:
                super().start(method)
            except (OSError, daemon.FailedToDropPrivileges) as error:
                detail = f"{error}: run as root, or allow it in sudoers (etc/sudoers.d/saphira)"
                raise PrivsepError(command="privileged helper", status="-", detail=detail) from None


default = _Context(
    "saphira.privsep", cfg_section=SECTION, pypath=CONTEXT, capabilities=CAPABILITIES
)
cfg.CONF.set_default("thread_pool_size", THREAD_POOL_SIZE, group=SECTION)


def entrypoint(func: Callable[P, R]) -> Callable[P, R]:
    """``default.entrypoint`` with the function's own signature kept for type checks."""
    return cast(Callable[P, R], default.entrypoint(func))


_lock = threading.Lock()


def helper_main() -> None:
    """oslo.privsep's ``privsep-helper`` main (the daemon side)."""
    daemon.helper_main()


def ensure_started() -> None:
    """Start the helper now rather than on the first call (idempotent)."""
    with _lock:
        if default.client_mode and default.channel is None:
            default.start()


def running() -> bool:
    """Whether this process has a helper now (started by ``ensure_started`` or a call)."""
    with _lock:
        return bool(default.client_mode and default.channel is not None)


def stop() -> None:
    """Let the helper go (it exits when its channel closes); a later call starts another."""
    with _lock:
        if default.client_mode and default.channel is not None:
            default.stop()


def unavailable_reason() -> str | None:
    """Why entry points cannot run here (None: the helper runs or has just started).

    Root starts the helper itself; another user needs the sudoers rule for it.
    """
    try:
        ensure_started()
    except PrivsepError as error:
        return error.message
    return None


@entrypoint
def identity() -> dict[str, Any]:
    """The helper as the kernel sees it: pid, uids and capability sets (for checks)."""
    status = {}
    with open(f"/proc/{os.getpid()}/status", encoding="ascii") as lines:
        for line in lines:
            key, _, value = line.partition(":")
            if key in ("Uid", "Gid", "CapEff", "CapPrm", "CapInh", "CapBnd"):
                status[key] = value.split()[0] if key in ("Uid", "Gid") else value.strip()
    return {"pid": os.getpid(), **status}
