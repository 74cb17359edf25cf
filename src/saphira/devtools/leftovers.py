"""Ending what a test or benchmark cloud leaves running by design.

Guests outlive ``saphira up`` (as they outlive nova-compute), so whoever
started a throwaway cloud must end its domains, found by their disks under
that cloud's instances path.
"""

from __future__ import annotations

from pathlib import Path

import libvirt


def remove_guests_under(instances: Path, uri: str = "qemu:///system") -> list[str]:
    """Destroy and undefine every domain with a file under ``instances``; their names."""
    conn = libvirt.open(uri)
    removed = []
    try:
        for dom in conn.listAllDomains(0):
            try:
                if str(instances) in dom.XMLDesc(0):
                    if dom.isActive():
                        dom.destroy()
                    dom.undefineFlags(libvirt.VIR_DOMAIN_UNDEFINE_MANAGED_SAVE)
                    removed.append(dom.name())
            except libvirt.libvirtError as error:  # gone meanwhile (its cloud deleted it)
                if error.get_error_code() != libvirt.VIR_ERR_NO_DOMAIN:
                    raise
    finally:
        conn.close()
    return removed
