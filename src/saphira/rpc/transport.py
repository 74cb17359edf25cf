"""Transports from configuration: ``inproc://`` in process, anything else via oslo.messaging.

One transport per process and purpose is the rule (each holds a connection
pool); services build theirs once at start and pass it to clients, servers
and notifiers.
"""

from __future__ import annotations

import re
from typing import Any

import oslo_messaging
from oslo_config import cfg

from saphira.exception import ConfigError
from saphira.rpc.inproc import InProcDriver

INPROC = "inproc"
# Exceptions from these modules cross the bus as themselves (a subclass named
# <Class>_Remote); anything else arrives as oslo_messaging.RemoteError.
ALLOWED_REMOTE_EXMODS = ["saphira.exception"]
# user:password@ after "//" or "," (several hosts): keep the user, hide the password.
_PASSWORD = re.compile(r"((?://|,)[^:/@,]*:)[^@/,]*@")


def mask(url: str) -> str:
    """The URL with every host's password replaced, for messages and logs."""
    return _PASSWORD.sub(r"\1****@", url)


def _build(conf: cfg.ConfigOpts, url: str, kind: type[Any]) -> Any:
    try:
        parsed = oslo_messaging.TransportURL.parse(conf, url)
        if parsed.transport == INPROC:
            driver = InProcDriver(
                conf,
                parsed,
                default_exchange=conf.control_exchange,
                allowed_remote_exmods=ALLOWED_REMOTE_EXMODS,
            )
            return kind(driver)
        if kind is oslo_messaging.transport.NotificationTransport:
            return oslo_messaging.get_notification_transport(
                conf, url, allowed_remote_exmods=ALLOWED_REMOTE_EXMODS
            )
        return oslo_messaging.get_rpc_transport(
            conf, url, allowed_remote_exmods=ALLOWED_REMOTE_EXMODS
        )
    except (oslo_messaging.InvalidTransportURL, oslo_messaging.DriverLoadFailure) as exc:
        raise ConfigError(f"transport_url {mask(url)}: {exc}") from None


def get_rpc_transport(conf: cfg.ConfigOpts, url: str | None = None) -> Any:
    """The RPC transport for [DEFAULT] transport_url (or ``url``)."""
    return _build(conf, url or conf.transport_url, oslo_messaging.transport.RPCTransport)


def get_notification_transport(conf: cfg.ConfigOpts, url: str | None = None) -> Any:
    """[oslo_messaging_notifications] transport_url, falling back to the RPC one."""
    chosen = url or conf.oslo_messaging_notifications.transport_url or conf.transport_url
    return _build(conf, chosen, oslo_messaging.transport.NotificationTransport)
