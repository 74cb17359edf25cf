"""Neutron's faults by name: the class name is the ``type`` a client sees.

Each is a saphira.exception class carrying its HTTP status; ``Named`` marks
the ones whose class name is Neutron's, so the API's fault formatter writes
``{"NeutronError": {"type": <name>, ...}}`` for them and an ``HTTP...`` name
for the generic ones.
"""

from __future__ import annotations

from saphira import exception


class Named:
    """Mixin: this class's name is the NeutronError type."""


class PolicyNotAuthorized(Named, exception.Forbidden):
    msg_fmt = "rule:%(action)s is disallowed by policy"


class InvalidInput(Named, exception.BadRequest):
    msg_fmt = "Invalid input for operation: %(error_message)s."


class NetworkNotFound(Named, exception.NotFound):
    msg_fmt = "Network %(net_id)s could not be found."


class SubnetNotFound(Named, exception.NotFound):
    msg_fmt = "Subnet %(subnet_id)s could not be found."


class PortNotFound(Named, exception.NotFound):
    msg_fmt = "Port %(port_id)s could not be found."


class SecurityGroupNotFound(Named, exception.NotFound):
    msg_fmt = "Security group %(id)s does not exist"


class SecurityGroupRuleNotFound(Named, exception.NotFound):
    msg_fmt = "Security group rule %(id)s does not exist"


class AgentNotFound(Named, exception.NotFound):
    msg_fmt = "Agent %(id)s could not be found."


class NetworkInUse(Named, exception.Conflict):
    msg_fmt = (
        "Unable to complete operation on network %(net_id)s. "
        "There are one or more ports still in use on the network."
    )


class SubnetInUse(Named, exception.Conflict):
    msg_fmt = (
        "Unable to complete operation on subnet %(subnet_id)s: "
        "One or more ports have an IP allocation from this subnet."
    )


class InvalidSharedSetting(Named, exception.Conflict):
    msg_fmt = (
        "Unable to reconfigure sharing settings for network %(network)s. "
        "Multiple tenants are using it."
    )


class VlanIdInUse(Named, exception.Conflict):
    msg_fmt = (
        "Unable to create the network. The VLAN %(vlan_id)s on physical network "
        "%(physical_network)s is in use."
    )


class FlatNetworkInUse(Named, exception.Conflict):
    msg_fmt = "Unable to create the flat network. Physical network %(physical_network)s is in use."


class NoNetworkAvailable(Named, exception.ServiceUnavailable):
    msg_fmt = "Unable to create the network. No tenant network is available for allocation."


class MacAddressInUse(Named, exception.Conflict):
    msg_fmt = (
        "Unable to complete operation for network %(net_id)s. The mac address %(mac)s is in use."
    )


class IpAddressAlreadyAllocated(Named, exception.Conflict):
    msg_fmt = "IP address %(ip)s already allocated in subnet %(subnet_id)s"


class IpAddressGenerationFailure(Named, exception.Conflict):
    msg_fmt = "No more IP addresses available on network %(net_id)s."


class InvalidIpForSubnet(Named, exception.BadRequest):
    msg_fmt = "IP address %(ip_address)s is not a valid IP for the specified subnet."


class InvalidIpForNetwork(Named, exception.BadRequest):
    msg_fmt = (
        "IP address %(ip_address)s is not a valid IP for any of the subnets on the "
        "specified network."
    )


class GatewayIpInUse(Named, exception.Conflict):
    msg_fmt = (
        "Current gateway ip %(ip_address)s already in use by port %(port_id)s. Unable to update."
    )


class InvalidAllocationPool(Named, exception.BadRequest):
    msg_fmt = "The allocation pool %(pool)s is not valid."


class OutOfBoundsAllocationPool(Named, exception.BadRequest):
    msg_fmt = "The allocation pool %(pool)s spans beyond the subnet cidr %(subnet_cidr)s."


class OverlappingAllocationPools(Named, exception.Conflict):
    msg_fmt = (
        "Found overlapping allocation pools: %(pool_1)s %(pool_2)s for subnet %(subnet_cidr)s."
    )


class GatewayConflictWithAllocationPools(Named, exception.Conflict):
    msg_fmt = "Gateway ip %(ip_address)s conflicts with allocation pool %(pool)s."


class PortBound(Named, exception.Conflict):
    msg_fmt = (
        "Unable to complete operation on port %(port_id)s, port is already bound, "
        "port type: %(vif_type)s, old_mac %(old_mac)s, new_mac %(new_mac)s."
    )


class PortSecurityPortHasSecurityGroup(Named, exception.Conflict):
    msg_fmt = (
        "Port has security group associated. Cannot disable port security or ip address "
        "until security group is removed"
    )


class PortSecurityAndIPRequiredForSecurityGroups(Named, exception.BadRequest):
    msg_fmt = (
        "Port security must be enabled and port must have an IP address in order to use "
        "security groups."
    )


class AddressPairAndPortSecurityRequired(Named, exception.Conflict):
    msg_fmt = "Port Security must be enabled in order to have allowed address pairs on a port."


class OverQuota(Named, exception.Conflict):
    msg_fmt = "Quota exceeded for resources: %(overs)s."


class SecurityGroupInUse(Named, exception.Conflict):
    msg_fmt = "Security Group %(id)s in use."


class SecurityGroupCannotRemoveDefault(Named, exception.Conflict):
    msg_fmt = "Insufficient rights for removing default security group."


class SecurityGroupCannotUpdateDefault(Named, exception.Conflict):
    msg_fmt = "Updating default security group not allowed."


class SecurityGroupDefaultAlreadyExists(Named, exception.Conflict):
    msg_fmt = "Default security group already exists."


class SecurityGroupRuleExists(Named, exception.Conflict):
    msg_fmt = "Security group rule already exists. Rule id is %(id)s."


class SecurityGroupRuleInvalidProtocol(Named, exception.BadRequest):
    msg_fmt = (
        "Security group rule protocol %(protocol)s not supported. Only protocol values "
        "%(values)s and integer representations [0 to 255] are supported."
    )


class SecurityGroupInvalidPortRange(Named, exception.BadRequest):
    msg_fmt = "For TCP/UDP protocols, port_range_min must be <= port_range_max"


class SecurityGroupInvalidPortValue(Named, exception.BadRequest):
    msg_fmt = "Invalid value for port %(port)s"


class SecurityGroupInvalidIcmpValue(Named, exception.BadRequest):
    msg_fmt = "Invalid value for ICMP %(field)s (%(attr)s) %(value)s. It must be 0 to 255."


class SecurityGroupMissingIcmpType(Named, exception.BadRequest):
    msg_fmt = (
        "ICMP code (port-range-max) %(value)s is provided but ICMP type (port-range-min) "
        "is missing."
    )


class SecurityGroupProtocolRequiredWithPorts(Named, exception.BadRequest):
    msg_fmt = "Must also specify protocol if port range is given."


class SecurityGroupInvalidProtocolForPortRange(Named, exception.BadRequest):
    msg_fmt = (
        "Invalid protocol %(protocol)s for port range, only supported for TCP, UDP, "
        "UDPLITE, SCTP and DCCP."
    )


class SecurityGroupRemoteGroupAndRemoteIpPrefix(Named, exception.BadRequest):
    msg_fmt = "Only remote_ip_prefix or remote_group_id may be provided."


class SecurityGroupRuleParameterConflict(Named, exception.BadRequest):
    msg_fmt = "Conflicting value ethertype %(ethertype)s for CIDR %(cidr)s"


class SecurityGroupEthertypeConflictWithProtocol(Named, exception.BadRequest):
    msg_fmt = "Invalid ethertype %(ethertype)s for protocol %(protocol)s."


class InvalidCIDR(Named, exception.BadRequest):
    msg_fmt = "Invalid CIDR %(input)s given as IP prefix."


class MacAddressGenerationFailure(Named, exception.ServiceUnavailable):
    msg_fmt = "Unable to generate unique mac on network %(net_id)s."


class BadRequest(Named, exception.BadRequest):
    """Neutron's generic bad request: its type is plainly ``BadRequest``."""


class SecurityGroupConflict(Named, exception.Conflict):
    msg_fmt = "Error %(reason)s while attempting the operation."


class AdminRequired(Named, exception.Forbidden):
    msg_fmt = "User does not have admin privileges: %(reason)s."
