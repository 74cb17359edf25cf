"""``saphira-network-agent``: this host's L2 and DHCP agents ([DEFAULT] host).

The L2 agent is Open vSwitch's or the Linux bridge's, as ``[ml2]
mechanism_drivers`` and the host allow; the DHCP agent runs dnsmasq (and,
with ``[neutron] service_metadata_proxy``, the metadata agent and its
namespace proxies). Every mapped bridge (``[ovs]``/``[linux_bridge]
bridge_mappings``) must exist. Root work goes through the privileged helper:
run as root, or as the saphira user with etc/sudoers.d/saphira. A compute
node runs this and ``saphira-compute`` and nothing else.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from saphira.service.process import AgentHostService, run


def main(argv: Sequence[str] | None = None) -> int:
    return run("saphira-network-agent", AgentHostService, argv)


if __name__ == "__main__":
    sys.exit(main())
