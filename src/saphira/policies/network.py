"""The network API's default rules: Neutron's names and its current defaults.

Targets carry the resource's ``project_id`` (and ``tenant_id``), and for
things on a network that network's owner and sharing as
``network:project_id`` and ``network:shared``. Who may *see* a resource is
decided in saphira.netsvc.access (404, never 403); these rules decide what a
caller may do to what it sees, and which attributes it may set or read. An operator
overrides any of them in policy.yaml, as with Neutron.
"""

from __future__ import annotations

from oslo_policy import policy

ADMIN = "role:admin"
MEMBER = "role:member and project_id:%(project_id)s"
READER = "role:reader and project_id:%(project_id)s"
NET_OWNER = "role:member and project_id:%(network:project_id)s"
SHARED = "True:%(network:shared)s"
ADMIN_OR_MEMBER = f"{ADMIN} or ({MEMBER})"
ADMIN_OR_READER = f"{ADMIN} or ({READER})"
ADMIN_OR_NET_OWNER = f"{ADMIN} or ({NET_OWNER})"
# A port may be made on one's own network, or on a shared one by anyone.
CREATE_PORT = f"{ADMIN_OR_MEMBER} or ({NET_OWNER}) or (role:member and {SHARED})"
MANAGE_PORT = f"{ADMIN_OR_MEMBER} or ({NET_OWNER})"

_N, _S, _P = "/networks/{id}", "/subnets/{id}", "/ports/{id}"
_G, _R = "/security-groups/{id}", "/security-group-rules/{id}"
_RULES: list[tuple[str, str, str, str, str]] = [
    ("create_network", ADMIN_OR_MEMBER, "POST", "/networks", "Create a network."),
    ("create_network:shared", ADMIN, "POST", "/networks", "Create a shared network."),
    ("create_network:router:external", ADMIN, "POST", "/networks", "Create an external network."),
    ("create_network:provider:network_type", ADMIN, "POST", "/networks", "Choose the type."),
    ("create_network:provider:physical_network", ADMIN, "POST", "/networks", "Choose the wire."),
    ("create_network:provider:segmentation_id", ADMIN, "POST", "/networks", "Choose the VLAN."),
    ("get_network:provider:network_type", ADMIN, "GET", _N, "See the network type."),
    ("get_network:provider:physical_network", ADMIN, "GET", _N, "See the physical network."),
    ("get_network:provider:segmentation_id", ADMIN, "GET", _N, "See the VLAN id."),
    ("update_network", ADMIN_OR_MEMBER, "PUT", _N, "Update a network."),
    ("update_network:shared", ADMIN, "PUT", _N, "Share or unshare a network."),
    ("update_network:router:external", ADMIN, "PUT", _N, "Make a network external."),
    ("delete_network", ADMIN_OR_MEMBER, "DELETE", _N, "Delete a network."),
    ("create_subnet", ADMIN_OR_NET_OWNER, "POST", "/subnets", "Create a subnet."),
    ("update_subnet", ADMIN_OR_NET_OWNER, "PUT", _S, "Update a subnet."),
    ("delete_subnet", ADMIN_OR_NET_OWNER, "DELETE", _S, "Delete a subnet."),
    ("create_port", CREATE_PORT, "POST", "/ports", "Create a port."),
    ("create_port:device_owner", ADMIN_OR_NET_OWNER, "POST", "/ports",
     "Give a port a network:* device owner."),
    ("create_port:mac_address", ADMIN_OR_NET_OWNER, "POST", "/ports", "Choose the MAC address."),
    ("create_port:fixed_ips:ip_address", ADMIN_OR_NET_OWNER, "POST", "/ports",
     "Choose the IP address."),
    ("create_port:port_security_enabled", ADMIN_OR_NET_OWNER, "POST", "/ports",
     "Switch port security."),
    ("create_port:allowed_address_pairs", ADMIN_OR_NET_OWNER, "POST", "/ports",
     "Allow more addresses."),
    ("create_port:binding:host_id", ADMIN, "POST", "/ports", "Bind a port to a host."),
    ("create_port:binding:profile", ADMIN, "POST", "/ports", "Set the binding profile."),
    ("get_port:binding:host_id", ADMIN, "GET", _P, "See the host a port is bound to."),
    ("get_port:binding:vif_type", ADMIN, "GET", _P, "See the VIF type."),
    ("get_port:binding:vif_details", ADMIN, "GET", _P, "See the VIF details."),
    ("get_port:binding:profile", ADMIN, "GET", _P, "See the binding profile."),
    ("update_port", MANAGE_PORT, "PUT", _P, "Update a port."),
    ("update_port:device_owner", ADMIN_OR_NET_OWNER, "PUT", _P,
     "Give a port a network:* device owner."),
    ("update_port:mac_address", ADMIN, "PUT", _P, "Change the MAC address."),
    ("update_port:fixed_ips:ip_address", ADMIN_OR_NET_OWNER, "PUT", _P, "Choose IP addresses."),
    ("update_port:port_security_enabled", ADMIN_OR_NET_OWNER, "PUT", _P,
     "Switch port security."),
    ("update_port:allowed_address_pairs", ADMIN_OR_NET_OWNER, "PUT", _P,
     "Allow more addresses."),
    ("update_port:binding:host_id", ADMIN, "PUT", _P, "Bind a port to a host."),
    ("update_port:binding:profile", ADMIN, "PUT", _P, "Set the binding profile."),
    ("delete_port", MANAGE_PORT, "DELETE", _P, "Delete a port."),
    ("create_security_group", ADMIN_OR_MEMBER, "POST", "/security-groups", "Create a group."),
    ("update_security_group", ADMIN_OR_MEMBER, "PUT", _G, "Update a group."),
    ("delete_security_group", ADMIN_OR_MEMBER, "DELETE", _G, "Delete a group."),
    ("create_security_group_rule", ADMIN_OR_MEMBER, "POST", "/security-group-rules",
     "Add a rule to a group."),
    ("delete_security_group_rule", ADMIN_OR_MEMBER, "DELETE", _R, "Remove a rule."),
    ("get_agent", ADMIN, "GET", "/agents", "List and show agents."),
    ("update_agent", ADMIN, "PUT", "/agents/{id}", "Update an agent."),
    ("delete_agent", ADMIN, "DELETE", "/agents/{id}", "Delete an agent."),
    ("get_quota", ADMIN_OR_READER, "GET", "/quotas/{project_id}", "Show a project's quotas."),
    ("update_quota", ADMIN, "PUT", "/quotas/{project_id}", "Set a project's quotas."),
    ("delete_quota", ADMIN, "DELETE", "/quotas/{project_id}", "Reset a project's quotas."),
]  # fmt: skip


def list_rules() -> list[policy.RuleDefault]:
    return [
        policy.DocumentedRuleDefault(
            name=name,
            check_str=check,
            description=description,
            operations=[{"method": method, "path": f"/v2.0{path}"}],
            scope_types=["project"],
        )
        for name, check, method, path, description in _RULES
    ]
