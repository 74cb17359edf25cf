"""A test bed on one machine: a controller and compute nodes, each node in its
own network and mount namespaces (``./tools/dev testbed up|down|status``).

``layout`` names everything a bed makes, ``state`` is the file ``down`` reads,
``runner`` runs commands, ``node`` makes a node's namespaces and mounts,
``network`` the management and provider networks, ``daemons`` starts libvirt
and Open vSwitch inside a node, ``controller`` the control plane, ``bed``
puts them together and ``cli`` is the command.
"""
