"""Network agents: the host side of the network service (L2 wiring, DHCP)."""
