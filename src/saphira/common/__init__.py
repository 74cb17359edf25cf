"""What every long-running service process shares below the service packages:
timers (``periodic``) and the service user's credentials (``service_auth``).

It sits just above ``saphira.conf``: the scheduler, conductor and compute
agent use it, and it imports none of them (nor the database).
"""
