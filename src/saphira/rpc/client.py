"""The base of the typed RPC client stubs in ``saphira.rpc.rpcapi``.

A stub subclass names its TOPIC and RPC_API_VERSION and has one method per
remote method, each saying which interface version it needs. A version cap
(from a rolling upgrade's [upgrade_levels] or a test) makes a method that
needs a newer version fail here, before sending, instead of on an old
server that cannot understand it.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import oslo_messaging

from saphira import exception
from saphira.common import tally
from saphira.context import RequestContext
from saphira.rpc import deadline
from saphira.rpc.inproc import InProcDriver
from saphira.rpc.serializer import Serializer

# A call's own wait for its reply ends at its timeout; the deadline around it
# (which only a send stuck on an absent broker reaches) a little later.
DEADLINE_GRACE = 2.0


class RPCAPI:
    TOPIC: ClassVar[str]
    RPC_API_VERSION: ClassVar[str]
    BASE_VERSION: ClassVar[str] = "1.0"

    def __init__(
        self,
        transport: Any,
        *,
        version_cap: str | None = None,
        timeout: float | None = None,
        topic: str | None = None,
    ) -> None:
        self.topic = topic or self.TOPIC
        target = oslo_messaging.Target(topic=self.topic, version=self.BASE_VERSION)
        self._client = oslo_messaging.get_rpc_client(
            transport,
            target,
            version_cap=version_cap,
            serializer=Serializer(),
            timeout=timeout,
        )
        self.version_cap = version_cap
        # The in-process bus never blocks a send; a broker may (see rpc.deadline).
        self._bounded = not isinstance(getattr(transport, "_driver", None), InProcDriver)
        self._conf_timeout = float(transport.conf.rpc_response_timeout)
        self.tally = tally.TALLY  # counts what is sent (bench/ reads it)

    def can_send_version(self, version: str) -> bool:
        return bool(self._client.can_send_version(version))

    def _prepare(self, method: str, version: str | None, **options: Any) -> Any:
        version = version or self.BASE_VERSION
        if not self.can_send_version(version):
            raise exception.RPCPinnedToOldVersion(
                method=method, version=version, topic=self.topic, cap=self.version_cap
            )
        return self._client.prepare(version=version, **options)

    def call(
        self,
        ctxt: RequestContext,
        method: str,
        *,
        version: str | None = None,
        server: str | None = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> Any:
        """Send and wait for the result; no reply in time is exception.MessagingTimeout."""
        options: dict[str, Any] = {"server": server}
        if timeout is not None:
            options["timeout"] = timeout
        cctxt = self._prepare(method, version, **options)
        self.tally.add("rpc_calls", f"{self.topic}.{method}")
        seconds = cctxt.timeout or self._conf_timeout
        try:
            if not self._bounded:
                return cctxt.call(ctxt, method, **kwargs)
            send = functools.partial(cctxt.call, ctxt, method, **kwargs)
            return deadline.within(seconds + DEADLINE_GRACE, send, name=f"rpc-{method}")
        except (oslo_messaging.MessagingTimeout, deadline.Expired) as exc:
            raise exception.MessagingTimeout(
                method=method, topic=self.topic, timeout=seconds
            ) from exc

    def cast(
        self,
        ctxt: RequestContext,
        method: str,
        *,
        version: str | None = None,
        server: str | None = None,
        **kwargs: Any,
    ) -> None:
        """Send to one server of the topic (or the named one) without waiting."""
        self._prepare(method, version, server=server).cast(ctxt, method, **kwargs)
        self.tally.add("rpc_casts", f"{self.topic}.{method}")

    def fanout_cast(
        self, ctxt: RequestContext, method: str, *, version: str | None = None, **kwargs: Any
    ) -> None:
        """Send to every server listening on the topic now."""
        self._prepare(method, version, fanout=True).cast(ctxt, method, **kwargs)
        self.tally.add("rpc_fanouts", f"{self.topic}.{method}")
