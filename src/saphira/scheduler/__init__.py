"""The scheduler service: placement candidates, filters, weighers, claims.

``manager.SchedulerManager`` is the RPC endpoint behind
``saphira.rpc.rpcapi.scheduler.SchedulerAPI``; ``service.start`` runs it
(and the periodic host discovery) in a process.
"""
