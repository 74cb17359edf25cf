"""Metadata for guests on networks the DHCP agent serves (Neutron's isolated metadata).

A guest asks ``http://169.254.169.254/`` (``[fe80::a9fe:a9fe]`` on IPv6).
Inside each ``qdhcp-<network>`` namespace a small proxy (``ns_proxy``, not
root) listens there and relays the request over a unix socket to the
metadata agent on the host (``agent``), naming the network it came from and
the guest's address: both taken from where the request arrived, never from
what the guest sent (``headers``). The agent resolves (network, address) to
the port and so to the instance and project (``resolver``), signs the
instance id and forwards to the metadata API, as Neutron's metadata agent
does. ``proxies`` starts and stops the namespace proxies with the DHCP
agent's reconcile.
"""
