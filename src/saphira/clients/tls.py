"""What the services' own HTTPS clients verify the cloud's endpoints against.

Every HTTP client in a Saphira service is ``requests`` (the network,
placement and image clients, the service token, the token validator, the
Nova notifier); each passes ``verify=tls.verify()``. A service process sets
it once, at start, from ``[ssl] ca_file`` (``cert_file`` when unset); it
stays requests' default (the system's CAs, or ``REQUESTS_CA_BUNDLE``)
without TLS. It is per process, not per ConfigOpts: the CA a process's
clients trust is a property of the deployment it runs in. (Setting
``REQUESTS_CA_BUNDLE`` instead would not do: an operator's or the system's
value must win over it, and requests lets that variable override a
session's own ``verify``.)
"""

from __future__ import annotations

from oslo_config import cfg

from saphira.conf.ssl import ca_bundle

_bundle: str | None = None


def trust_own_endpoints(conf: cfg.ConfigOpts) -> None:
    global _bundle
    _bundle = ca_bundle(conf)


def verify() -> str | bool:
    """The ``verify=`` of every request to the cloud's services."""
    return _bundle if _bundle is not None else True
