"""Every HTTP client one Saphira service uses to reach another.

One seam (``transport``: a request and a reply as dataclasses, sent by
``requests`` in services and by ``fake.FakeTransport`` in unit tests), one
base (``base.ServiceClient``: token headers, timeouts, bounded retries of
idempotent calls, status -> ``saphira.exception`` mapping), and one small
module per service spoken to: ``placement``, ``image``, ``network``,
``identity`` (the service user's token, token validation) and
``compute_events`` (``os-server-external-events``). ``endpoints`` says
where the services are.

It sits below the APIs, agents and backends (and the virt drivers, which
download images through it), and imports none of them: a backend never
holds a client for another service, and an agent reaches placement through
``saphira.clients.placement``, never through the placement backend.
"""
