"""``saphira purge``: take a stopped cloud away from its host, and nothing else.

``recorded`` reads what the state directory says the cloud made, ``survey``
lists what the host has, ``plan`` (pure) decides which of it is the cloud's,
``apply`` removes that through the privileged helper (and libvirt for
guests), ``command`` is the CLI's part.
"""
