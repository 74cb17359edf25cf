"""Every operation that needs root, behind one door: the privileged helper.

Agents call small named functions (``privsep.netns.create``,
``privsep.ovs.add_port``...). Each is an oslo.privsep entry point
(``privsep.context``): called in a service, it runs in the helper daemon, a
separate root process holding only the capabilities the commands need, which
validates its arguments (``privsep.validate``) and runs one fixed command
through ``privsep.runner.run`` (no shell, a timeout, failures as
``PrivsepError``). The helper runs nothing that is not an entry point.
"""
