"""Ending what a test or benchmark cloud leaves on the host by design, the purge's way.

Guests outlive ``saphira up`` (as they outlive nova-compute), and so do its
dnsmasq servers, namespaces, taps and bridges: whoever started a throwaway
cloud takes it away with ``purge`` (``saphira purge`` in this process) once
it has stopped. ``remove_guests_under`` is the purge's rule for guests
alone, for a bench that knows only the instances path.
"""

from __future__ import annotations

import io
from pathlib import Path

from saphira.exception import SaphiraError
from saphira.service.purge import command
from saphira.service.purge.apply import Remover
from saphira.service.purge.model import HostView, Recorded
from saphira.service.purge.plan import plan
from saphira.service.purge.survey import domains


class LeftoversError(SaphiraError):
    msg_fmt = "saphira purge failed: %(detail)s"


def purge(state_dir: Path) -> list[str]:
    """Everything the stopped cloud of ``state_dir`` made on the host removed; the lines
    ``saphira purge`` printed (``["nothing to remove"]`` when it found nothing)."""
    out, err = io.StringIO(), io.StringIO()
    if command.run(str(state_dir), out=out, err=err) != 0:
        raise LeftoversError(detail=err.getvalue().strip())
    return out.getvalue().splitlines()


def remove_guests_under(instances: Path, uri: str = "qemu:///system") -> list[str]:
    """Destroy and undefine every domain with a file under ``instances``; their names."""
    host = HostView(domains=tuple(domains(uri)))
    removals = plan(Recorded(state_dir="", instances_path=str(instances)), host)
    remover = Remover(host, uri)
    for removal in removals:
        remover.remove(removal)
    return [removal.name for removal in removals]
