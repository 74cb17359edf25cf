"""``saphira verify``: a server checked in layers, the way the compute node guide says to.

A client of the cloud, as the ``openstack`` CLI is: it reads the public APIs with the
user's credentials (``gather``) into typed facts (``facts``), and each layer
(``hosts``, ``agents``, ``state``, ``binding``, ``console``, ``lease``, ``secgroups``,
``reach``) judges its facts alone. ``run`` walks the layers in order and stops at the
first that fails; ``fixes`` is the table of what to do about each, from the guide's
pitfalls. A layer the caller's policy cannot read says "needs admin" instead of failing.
"""
