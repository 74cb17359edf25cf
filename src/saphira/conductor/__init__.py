"""The conductor service: the build and resize workflows, and every database
write the compute agents need (they have no database access).

``manager.ConductorManager`` is the RPC endpoint behind
``saphira.rpc.rpcapi.conductor.ConductorAPI``; ``service.start`` runs it with
its periodic watchdog (builds stuck on a host that went down).
"""
