"""Why a server's ports could not be had, in Nova's words.

Most of these would fail the same way on any host, so the build is aborted
instead of rescheduled (Nova's BuildAbortException); a port that cannot be
bound *here* (no live L2 agent mapping its physical network) may bind on
another host, so that one is rescheduled.

Each carries the status Nova's os-interface answers when an attach meets it
(a build ignores it: its fault is always a 500).
"""

from __future__ import annotations

from saphira import exception


class BuildAborted(exception.SaphiraError):
    """Not this host's fault: fail the build, do not try another host."""


class NetworkAmbiguous(BuildAborted):
    code = 400
    msg_fmt = "Multiple possible networks found, use a Network ID to be more specific."


class NetworkNotFound(BuildAborted):
    code = 404
    msg_fmt = "Network %(network_id)s could not be found."


class NetworkRequiresSubnet(BuildAborted):
    code = 400
    msg_fmt = "Network %(network_id)s requires a subnet in order to boot instances on."


class ExternalNetworkAttachForbidden(BuildAborted):
    code = 403
    msg_fmt = "It is not allowed to create an interface on external network %(network_id)s"


class PortNotFound(BuildAborted):
    code = 404
    msg_fmt = "Port %(port_id)s could not be found."


class PortInUse(BuildAborted):
    code = 409
    msg_fmt = "Port %(port_id)s is still in use."


class SecurityGroupNotFound(BuildAborted):
    code = 404
    msg_fmt = "Security group %(name)s not found for project %(project_id)s."


class SecurityGroupNotUnique(BuildAborted):
    code = 409
    msg_fmt = "Multiple security groups found matching '%(name)s'. Use an ID to be more specific."


class NetworkAllocationFailed(BuildAborted):
    """``reason`` is the network service's own message, ``code`` the status an
    attach answers with (Nova's mapping of the service's refusal)."""

    msg_fmt = "Failed to allocate the network(s), not rescheduling: %(reason)s"

    def __init__(self, reason: str, code: int = 500) -> None:
        super().__init__(reason=reason)
        self.reason, self.code = reason, code


class PortBindingFailed(exception.SaphiraError):
    """The host cannot wire the port; another host may."""

    msg_fmt = (
        "Binding failed for port %(port_id)s on host %(host)s (vif_type %(vif_type)s): "
        "no live L2 agent there maps the network's physical network"
    )
