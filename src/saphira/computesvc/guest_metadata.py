"""What the metadata API reads and writes: a server by id alone, and its password.

The metadata API has no caller's token: the metadata proxy vouches for the
instance id (a signed header), so it reads as the service, across projects,
and checks the project itself.
"""

from __future__ import annotations

import json

from saphira.computesvc.caller import Caller
from saphira.computesvc.lookup import cell_session, locate
from saphira.context import RequestContext
from saphira.db.cell import instances
from saphira.db.directory import CellDirectory
from saphira.exception import Conflict, InstanceNotFound
from saphira.metadata.content import password_chunks, password_of
from saphira.objects import Instance

SERVICE = RequestContext(roles=("admin",), user_name="metadata")


def instance(directory: CellDirectory, uuid: str) -> Instance:
    """The placed server ``uuid`` (a build request has no metadata yet: InstanceNotFound)."""
    with directory.api() as api:
        found = locate(Caller(SERVICE, api, directory), uuid)
    if found.building:
        raise InstanceNotFound(instance_id=uuid)
    return found.instance


def set_password(directory: CellDirectory, uuid: str, password: str) -> None:
    """Keep the password the guest posts, once: a second one is a 409 (Nova's rule)."""
    with directory.api() as api:
        caller = Caller(SERVICE, api, directory)
        found = locate(caller, uuid)
        if found.building:
            raise InstanceNotFound(instance_id=uuid)
        with cell_session(caller, found) as session:
            current = instances.get(session, uuid)
            if password_of(current.system_metadata):
                raise Conflict("Password already set.")
            sysmeta = {**current.system_metadata, **password_chunks(password)}
            instances.update(session, uuid, system_metadata=json.dumps(sysmeta))
