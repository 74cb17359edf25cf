"""``saphira-network-agent``: this host's L2 and DHCP agents ([DEFAULT] host).

The L2 agent is Open vSwitch's or the Linux bridge's, as ``[ml2]
mechanism_drivers`` and the host allow; the DHCP agent runs dnsmasq (and,
with ``[neutron] service_metadata_proxy``, the metadata agent and its
namespace proxies). Every mapped bridge (``[ovs]``/``[linux_bridge]
bridge_mappings``) must exist. Root work goes through the privileged helper.
Started as root, it starts the helper and then runs as ``--user`` (default
saphira; ``--user root`` keeps root), as ``saphira up`` does; started as the
saphira user, it starts the helper through etc/sudoers.d/saphira. A compute
node runs this and ``saphira-compute`` and nothing else.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from oslo_config import cfg

from saphira.service.process import AgentHostService, run

PROG = "saphira-network-agent"
DEFAULT_USER = "saphira"


def _user(asked: str | None) -> str | None:
    """Whom to become: by default the saphira user when started as root, else nobody
    (another user asked for without root is refused at the drop); ``root`` stays root."""
    if asked is None:
        return DEFAULT_USER if os.geteuid() == 0 else None
    return None if asked == "root" else asked


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, add_help=False)
    parser.add_argument("--user", metavar="NAME")
    args, rest = parser.parse_known_args(argv)  # --config-file and --help: service.process

    def start(conf: cfg.ConfigOpts) -> AgentHostService:
        return AgentHostService(conf, _user(args.user))

    return run(PROG, start, rest)


if __name__ == "__main__":
    sys.exit(main())
