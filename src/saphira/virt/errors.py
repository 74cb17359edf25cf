"""Driver failures. The conductor turns them into instance faults and
reschedules a failed build; the message names host and cause."""

from __future__ import annotations

from saphira.exception import SaphiraError


class VirtError(SaphiraError):
    msg_fmt = "Hypervisor error on %(host)s: %(reason)s"


class GuestNotFound(VirtError):
    code = 404
    msg_fmt = "No guest %(name)s on %(host)s"


class InjectedFault(VirtError):
    """A failure the fake driver was told to produce."""

    msg_fmt = "Injected fault: %(operation)s of %(name)s on %(host)s"


class VirtualInterfaceCreateFailed(VirtError):
    """A new guest's port never came up (Nova's VirtualInterfaceCreateException):
    the network side failed, so another host would not do better."""
