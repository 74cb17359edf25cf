"""The network service's logic (Neutron's plugin side): networks and their segments,
subnets, ports and IPAM, security groups, agents and quotas, over saphira.db.network.

No HTTP here: saphira.api.network parses requests and shapes answers; the
agents (saphira.network) will reach ``agents.AgentRegistry`` and
``ports.set_status`` through RPC.
"""
