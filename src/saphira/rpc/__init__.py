"""The message bus: oslo.messaging RPC and notifications on threads.

Importing this package first selects oslo.service's threading backend, so
every submodule (which imports oslo.messaging) runs without eventlet.
``transport`` builds transports from [DEFAULT] transport_url (``inproc://``
or ``rabbit://``), ``client.RPCAPI`` is the base of the typed stubs in
``rpcapi/``, ``server.start_server`` runs endpoints, ``notifier`` sends and
receives notifications, ``serializer``/``payload`` define what crosses.
"""

from saphira.conf import messaging as _messaging

_messaging.select_threading_backend()
