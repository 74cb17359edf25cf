"""Typed records that cross process boundaries (RPC payloads, notifications).

Each is a dataclass with a ``VERSION`` and ``to_primitive``/``from_primitive``
(see ``base``); none does I/O. The database layer converts rows to these, the
RPC layer serialises them, agents and drivers only ever see these.
"""

from saphira.objects.action import InstanceAction, InstanceActionEvent
from saphira.objects.base import SaphiraObject, from_primitive, registry
from saphira.objects.build_order import (
    BuildAttempt,
    BuildImage,
    BuildOrder,
    NetworkMode,
    NetworkRequest,
)
from saphira.objects.compute_node import ComputeNode
from saphira.objects.console import ConsoleEndpoint, ConsoleType
from saphira.objects.fault import InstanceFault
from saphira.objects.flavor import Flavor
from saphira.objects.instance import Instance
from saphira.objects.network import (
    AddressPair,
    DhcpHost,
    DhcpNetwork,
    DhcpSubnet,
    FixedIP,
    HostRoute,
    PortDetails,
    SecurityRule,
    Segment,
)
from saphira.objects.network_info import InstanceVIF
from saphira.objects.request_spec import RequestSpec
from saphira.objects.selection import Selection
from saphira.objects.service import Service

__all__ = [
    "AddressPair",
    "BuildAttempt",
    "BuildImage",
    "BuildOrder",
    "ComputeNode",
    "ConsoleEndpoint",
    "ConsoleType",
    "DhcpHost",
    "DhcpNetwork",
    "DhcpSubnet",
    "FixedIP",
    "Flavor",
    "HostRoute",
    "Instance",
    "InstanceAction",
    "InstanceActionEvent",
    "InstanceFault",
    "InstanceVIF",
    "NetworkMode",
    "NetworkRequest",
    "PortDetails",
    "RequestSpec",
    "SaphiraObject",
    "SecurityRule",
    "Segment",
    "Selection",
    "Service",
    "from_primitive",
    "registry",
]
