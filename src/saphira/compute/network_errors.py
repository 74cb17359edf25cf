"""Why a server's ports could not be had, in Nova's words.

Most of these would fail the same way on any host, so the build is aborted
instead of rescheduled (Nova's BuildAbortException); a port that cannot be
bound *here* (no live L2 agent mapping its physical network) may bind on
another host, so that one is rescheduled.
"""

from __future__ import annotations

from saphira import exception


class BuildAborted(exception.SaphiraError):
    """Not this host's fault: fail the build, do not try another host."""


class NetworkAmbiguous(BuildAborted):
    msg_fmt = "Multiple possible networks found, use a Network ID to be more specific."


class NetworkNotFound(BuildAborted):
    msg_fmt = "Network %(network_id)s could not be found."


class NetworkRequiresSubnet(BuildAborted):
    msg_fmt = "Network %(network_id)s requires a subnet in order to boot instances on."


class ExternalNetworkAttachForbidden(BuildAborted):
    msg_fmt = "It is not allowed to create an interface on external network %(network_id)s"


class PortNotFound(BuildAborted):
    msg_fmt = "Port %(port_id)s could not be found."


class PortInUse(BuildAborted):
    msg_fmt = "Port %(port_id)s is still in use."


class SecurityGroupNotFound(BuildAborted):
    msg_fmt = "Security group %(name)s not found for project %(project_id)s."


class SecurityGroupNotUnique(BuildAborted):
    msg_fmt = "Multiple security groups found matching '%(name)s'. Use an ID to be more specific."


class NetworkAllocationFailed(BuildAborted):
    msg_fmt = "Failed to allocate the network(s), not rescheduling: %(reason)s"


class PortBindingFailed(exception.SaphiraError):
    """The host cannot wire the port; another host may."""

    msg_fmt = (
        "Binding failed for port %(port_id)s on host %(host)s (vif_type %(vif_type)s): "
        "no live L2 agent there maps the network's physical network"
    )
