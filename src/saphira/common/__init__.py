"""What every long-running service process shares below the service packages:
timers (``periodic``).

It sits just above ``saphira.conf``: the scheduler, conductor and compute
agent use it, and it imports none of them (nor the database). Clients of
other services live in ``saphira.clients``.
"""
