"""Every operation that needs root, behind one door.

Agents call small named functions (``privsep.netns.create``,
``privsep.ovs.add_port``...), each of which runs its commands through
``privsep.runner.run``: one place that logs, times out and turns failures
into ``PrivsepError``, and the one place to swap for a privileged helper
daemon when the agents stop running as root.
"""
