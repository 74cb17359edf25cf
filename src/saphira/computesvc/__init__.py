"""The compute service layer: what the compute API asks of the databases.

``saphira.api.compute``'s handlers parse a request, check policy, call
functions here and render the view; this package finds servers (a build
request in the API database or a row in one cell, the cell resolved once
through the shared ``saphira.db.directory``), lists them, makes the
compare-and-swap of an action and records it, deletes, saves metadata and
tags, and reads services, nodes and instance actions. Every function takes a
``Caller``: the request's context, its API-database session and the cell
directory. RPC stays with the handlers' backend (``api/compute/backend.py``).
"""

from saphira.computesvc.caller import Caller
from saphira.db.api.cells import Cell
from saphira.db.directory import CellDirectory

__all__ = ["Caller", "Cell", "CellDirectory"]
