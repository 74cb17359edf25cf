"""Builds no conductor will ever place: ERROR in cell0, with the claim dropped.

A server's build request lives in the API database from the API's create until
a conductor has scheduled it and written its row into a cell. A conductor
SIGKILLed while it scheduled (its RPC message was taken off the queue, so no
other conductor gets it) or an API killed between recording the build and
casting it leaves the request there for good: the server lists as
BUILD/scheduling and no service would ever move it (Nova's servers stay so).
The conductor's watchdog buries each build request older than [DEFAULT]
lost_build_timeout in cell0, as a build nothing fits: ERROR with the fault
"The build was lost ..." and any claim the scheduler made dropped. A
conductor that is only slow loses nothing: whichever deletes the build request
first owns the server, and the other one's row is removed again.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import TYPE_CHECKING

from saphira import exception
from saphira.context import RequestContext
from saphira.db.api import build_requests

if TYPE_CHECKING:
    from saphira.conductor.build import BuildTasks

LOG = logging.getLogger(__name__)


class BuildLost(exception.SaphiraError):
    msg_fmt = (
        "The build was lost: it was not scheduled within %(timeout)s seconds "
        "(a service was restarted while it was). Delete the server and create it again."
    )


def bury_lost_builds(tasks: BuildTasks, timeout: int, now: dt.datetime | None = None) -> list[str]:
    """One pass: the uuids of the builds it failed."""
    now = now or dt.datetime.now(dt.UTC).replace(tzinfo=None)
    with tasks.dbs.api() as api:
        lost = build_requests.created_before(api, now - dt.timedelta(seconds=timeout))
    buried: list[str] = []
    for instance in lost:
        if not tasks.bury_lost_build(RequestContext(), instance, BuildLost(timeout=timeout)):
            continue  # placed or deleted meanwhile: not lost after all
        tasks.placement.delete_allocations(instance.uuid)
        LOG.warning("instance %s: build lost, failed after %s s", instance.uuid, timeout)
        buried.append(instance.uuid)
    return buried
