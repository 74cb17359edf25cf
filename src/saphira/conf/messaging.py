"""The message bus options: oslo.messaging's own, registered on our ConfigOpts.

oslo.messaging registers its options lazily, when a transport is first made,
and refuses a differently-declared option of the same name. So we register
the library's own declarations (with Saphira's defaults applied to them, as
``set_transport_defaults`` does) and never redeclare them: a nova.conf with
[oslo_messaging_rabbit] or [oslo_messaging_notifications] keys just works, and
the sample file documents every key the library reads.

The library must run on oslo.service's threading backend (no eventlet): it is
selected here, before anything of oslo.messaging is imported.
"""

from __future__ import annotations

import copy
import importlib
import threading
import warnings
from typing import Any

from oslo_config import cfg

# Saphira's defaults where they differ from the library's.
DEFAULT_TRANSPORT_URL = "inproc://"
CONTROL_EXCHANGE = "saphira"
# A cast must survive a consumer restart and a broker restart: classic
# durable queues (and kombu's persistent messages) rather than Nova's
# transient default. Reply and fanout queues stay transient.
DURABLE_QUEUES = True
# RabbitMQ as oslo.messaging recommends today (and RabbitMQ >= 3.8, Debian 12
# ships 3.10): quorum queues for topics (durable, replicated, no classic
# mirroring) and for the transient reply and fanout queues too, which then
# survive a broker restart; those need stable names, so the queue manager
# names them after [oslo_messaging_rabbit] hostname and processname instead
# of a random uuid (and a restarted service takes its old queues back).
# Heartbeats: 20 s (RabbitMQ advises 5-20 s; the library's is 60), checked
# six times per period; a lost broker is retried after 1, 2, 3... at most
# 5 s apart instead of 1, 3, 5... up to 30, so services are back within
# seconds of a restart. Stream fanout stays off: it needs
# rabbit_qos_prefetch_count and replays the stream's tail to new consumers.
RABBIT_DEFAULTS: dict[str, object] = {
    "rabbit_quorum_queue": True,
    "rabbit_transient_quorum_queue": True,
    "use_queue_manager": True,
    "heartbeat_timeout_threshold": 20,
    "heartbeat_rate": 3,
    "kombu_reconnect_delay": 0.5,
    "rabbit_retry_backoff": 1,
    "rabbit_interval_max": 5,
}

_lock = threading.Lock()
_ready = False


def select_threading_backend() -> None:
    """Make oslo.service (which oslo.messaging imports) use threads, not eventlet.

    Idempotent. Import-time deprecation warnings of the libraries (eventlet is
    imported, never used, by futurist) are silenced here once, so they do not
    reach operators or the warnings-as-errors test run.
    """
    global _ready
    with _lock:
        if _ready:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            backend = importlib.import_module("oslo_service.backend")
            backend.init_backend(backend.BackendType.THREADING)
            transport = importlib.import_module("oslo_messaging.transport")
            importlib.import_module("oslo_messaging.opts")
        transport.set_transport_defaults(CONTROL_EXCHANGE)
        cfg.set_defaults(transport._transport_opts, transport_url=DEFAULT_TRANSPORT_URL)
        amqp = importlib.import_module("oslo_messaging._drivers.amqp")
        cfg.set_defaults(amqp.amqp_opts, amqp_durable_queues=DURABLE_QUEUES)
        rabbit = importlib.import_module("oslo_messaging._drivers.impl_rabbit")
        cfg.set_defaults(rabbit.rabbit_opts, **RABBIT_DEFAULTS)
        _ready = True


# Groups the library registers only on the global cfg.CONF yet reads from the
# transport's conf: without them a private ConfigOpts fails on the first send.
_GLOBAL_ONLY = {
    "oslo_messaging_tracing": "oslo_messaging._tracing.client",
    "oslo_messaging_metrics": "oslo_messaging._metrics.client",
}


def _library_opts() -> list[tuple[str | None, list[Any]]]:
    select_threading_backend()
    opts_module = importlib.import_module("oslo_messaging.opts")
    # Kafka is not a Saphira transport: leave its group out of the sample.
    keep = {None, "oslo_messaging_notifications", "oslo_messaging_rabbit"}
    result = [(name, opts) for name, opts in opts_module.list_opts() if name in keep]
    for group, module_name in _GLOBAL_ONLY.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # older oslo.messaging: the feature is absent
            continue
        result.append((group, copy.deepcopy(getattr(module, group))))
    return result


_HELP = {
    "oslo_messaging_notifications": "Notifications (driver 'messaging' sends them on the bus).",
    "oslo_messaging_rabbit": "The RabbitMQ driver (kombu): heartbeats, retries, queues.",
    "oslo_messaging_tracing": "OpenTelemetry tracing of RPC calls.",
    "oslo_messaging_metrics": "oslo.metrics collection of RPC figures.",
}


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    result: list[tuple[cfg.OptGroup | None, list[cfg.Opt]]] = []
    for name, opts in _library_opts():
        group = None if name is None else cfg.OptGroup(name, help=_HELP[name])
        result.append((group, opts))
    return result
