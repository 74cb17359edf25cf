"""Typed RPC client stubs, one module per service (scheduler, conductor, compute).

Each module holds a ``saphira.rpc.client.RPCAPI`` subclass with TOPIC,
RPC_API_VERSION and a history of the versions in its docstring; the
service's manager declares the same version with ``server.endpoint_target``.
"""
