"""The placement backend: providers, inventories, allocations and candidates over
its own database (the HTTP side is ``saphira.api.placement``; agents reach it
through ``saphira.clients.placement``)."""
