"""The DHCP agent's host side: one dnsmasq per network in its own namespace.

``DhcpAgent.sync`` makes the host match the networks it is given: it plugs
the network's DHCP port into a ``qdhcp-<network id>`` namespace, writes
dnsmasq's hosts and options files under ``<state_dir>/dhcp/<network id>/``,
and starts, reloads (SIGHUP), restarts or stops dnsmasq as little as the
difference requires, so an agent restart leaves running servers alone.
"""
