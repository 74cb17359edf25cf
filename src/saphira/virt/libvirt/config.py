"""A libvirt domain as frozen dataclasses, and its XML both ways: the driver
builds a ``DomainConfig``, never XML.

``from_xml(to_xml(d)) == d`` for every domain, and a domain read back from
libvirt compares equal to the one defined, except where libvirt expands a
value we gave (``machine`` "pc" becomes "pc-i440fx-7.2"; a TCG guest without
``cpu_mode`` gets "custom") or reports one it chose (the VNC ``port`` of a
running guest). The model, the writer and the reader live in ``config_types``,
``config_xml`` and ``config_parse``; this module is the one to import.
"""

from saphira.virt.libvirt.config_parse import from_xml
from saphira.virt.libvirt.config_types import (
    METADATA_NS,
    DiskConfig,
    DomainConfig,
    DomainXMLError,
    GraphicsConfig,
    InstanceMetadata,
    InterfaceConfig,
    SerialConsoleConfig,
    SpiceConfig,
)
from saphira.virt.libvirt.config_xml import interface_xml, to_xml

__all__ = [
    "METADATA_NS",
    "DiskConfig",
    "DomainConfig",
    "DomainXMLError",
    "GraphicsConfig",
    "InstanceMetadata",
    "InterfaceConfig",
    "SerialConsoleConfig",
    "SpiceConfig",
    "from_xml",
    "interface_xml",
    "to_xml",
]
