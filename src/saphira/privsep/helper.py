"""``python -m saphira.privsep.helper``: the privileged helper's main (run as root).

oslo.privsep keeps only ``context.CAPABILITIES`` in the daemon's effective and
permitted sets, but a root process that runs a command gives it whatever is
in its *bounding* set. So before handing over to ``privsep-helper``'s main,
every other capability leaves the bounding set: the commands the helper runs
(``ip``, ``ovs-vsctl``, ``dnsmasq``...) cannot load modules, trace processes
or reboot the host either.
"""

from __future__ import annotations

import ctypes
import sys

from saphira.privsep import context, validate

PR_CAPBSET_DROP = 24
CAP_LAST = 63  # beyond the kernel's last capability prctl fails with EINVAL, harmlessly


def drop_bounding_set(keep: tuple[int, ...]) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in range(CAP_LAST + 1):
        if cap not in keep:
            libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)


def check_arguments(args: list[str]) -> None:
    """Exactly the command line ``context.helper_command`` writes, whatever sudoers allows.

    Another ``--privsep_context`` (or a ``--config-file`` granting more
    capabilities) appended by a caller would otherwise win.
    """
    if len(args) != 4 or args[:3] != ["--privsep_context", context.CONTEXT, "--privsep_sock_path"]:
        sys.exit(f"saphira.privsep.helper: refused arguments {args!r}")
    try:
        if not validate.path(args[3]).endswith("/privsep.sock"):
            raise validate.InvalidArgument(detail=f"socket {args[3]!r}")
    except validate.InvalidArgument as error:
        sys.exit(f"saphira.privsep.helper: {error.message}")


def main() -> None:
    check_arguments(sys.argv[1:])
    drop_bounding_set(context.CAPABILITIES)
    context.helper_main()


if __name__ == "__main__":
    main()
