"""Transports from configuration: ``inproc://`` in process, anything else via oslo.messaging.

One transport per process and purpose is the rule (each holds a connection
pool); services build theirs once at start and pass it to clients, servers
and notifiers.
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any

import oslo_messaging
from oslo_concurrency import lockutils
from oslo_config import cfg

from saphira.exception import ConfigError
from saphira.rpc.inproc import InProcDriver

LOG = logging.getLogger(__name__)
INPROC = "inproc"
# Exceptions from these modules cross the bus as themselves (a subclass named
# <Class>_Remote); anything else arrives as oslo_messaging.RemoteError.
ALLOWED_REMOTE_EXMODS = ["saphira.exception"]
# user:password@ after "//" or "," (several hosts): keep the user, hide the password.
_PASSWORD = re.compile(r"((?://|,)[^:/@,]*:)[^@/,]*@")


def mask(url: str) -> str:
    """The URL with every host's password replaced, for messages and logs."""
    return _PASSWORD.sub(r"\1****@", url)


def name_queues_after_the_host(conf: cfg.ConfigOpts) -> None:
    """Where the RabbitMQ queue manager's stable names and counter come from.

    Reply and fanout queues are named ``<hostname>:<processname>:<n>``; the
    library's hostname is the machine's, so several nodes on one machine (a
    test bed, a deployment test) would share names and, through the
    counter's file in /dev/shm, reset each other's counters. [DEFAULT] host
    is what tells them apart, as it does for their topic queues. The
    counter is guarded by an oslo.concurrency file lock, which the library
    takes from the process's global options: [oslo_concurrency] lock_path
    becomes its default there unless one is already set.
    """
    conf.set_default("hostname", conf.host, group="oslo_messaging_rabbit")
    library = lockutils.CONF
    if conf.oslo_messaging_rabbit.use_queue_manager and not library.oslo_concurrency.lock_path:
        # ConfigOpts.set_default (not lockutils.set_defaults) also drops the cached None.
        library.set_default("lock_path", conf.oslo_concurrency.lock_path, group="oslo_concurrency")
    if conf.oslo_messaging_rabbit.use_queue_manager:
        lead_own_group_if_orphaned()


def lead_own_group_if_orphaned() -> None:
    """Make this process its own process group's leader when its group's leader is gone.

    The queue manager tells a service's generations apart by its process
    group: it reads ``/proc/<pgid>/stat``, and fails (FileNotFoundError, so
    the service cannot start) when the group's leader has exited, as when a
    shell or script that started the service in the background is gone.
    Such a group has nobody to signal it as a whole any more, so leading a
    group of our own loses nothing.
    """
    group = os.getpgrp()
    if group and not os.path.exists(f"/proc/{group}"):
        LOG.info("process group %d has no leader: leading a group of our own", group)
        os.setpgid(0, 0)


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
        name_queues_after_the_host(conf)
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
