"""What a libvirt domain's state means to Nova, and stopping one politely.

A managed-saved domain is shut off in libvirt's eyes, but to Nova it is
suspended (its memory is on disk and ``create()`` resumes it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import libvirt

from saphira.domain.states import PowerState

_STATES = {
    libvirt.VIR_DOMAIN_NOSTATE: PowerState.NOSTATE,
    libvirt.VIR_DOMAIN_RUNNING: PowerState.RUNNING,
    libvirt.VIR_DOMAIN_BLOCKED: PowerState.RUNNING,
    libvirt.VIR_DOMAIN_PAUSED: PowerState.PAUSED,
    libvirt.VIR_DOMAIN_SHUTDOWN: PowerState.SHUTDOWN,
    libvirt.VIR_DOMAIN_SHUTOFF: PowerState.SHUTDOWN,
    libvirt.VIR_DOMAIN_CRASHED: PowerState.CRASHED,
    libvirt.VIR_DOMAIN_PMSUSPENDED: PowerState.SUSPENDED,
}
ACPI_RETRY = 10.0  # some guests ignore the first power button press while booting
POLL = 0.1


def power_state(dom: Any) -> PowerState:
    state, _reason = dom.state()
    if state == libvirt.VIR_DOMAIN_SHUTOFF and dom.hasManagedSaveImage(0):
        return PowerState.SUSPENDED
    return _STATES.get(state, PowerState.NOSTATE)


def force_off(dom: Any) -> None:
    """Destroy a running domain; one that is already off is fine."""
    try:
        dom.destroy()
    except libvirt.libvirtError as error:
        if error.get_error_code() != libvirt.VIR_ERR_OPERATION_INVALID:
            raise


def shutdown(
    dom: Any,
    timeout: float,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> bool:
    """ACPI power-off, pressed again every ACPI_RETRY s, forced after ``timeout``.

    True when the guest went off by itself within the timeout.
    """
    if not dom.isActive():
        return True
    deadline = clock() + timeout
    next_press = clock()
    while clock() < deadline:
        if clock() >= next_press:
            _press_power_button(dom)
            next_press = clock() + ACPI_RETRY
        sleep(POLL)
        if not dom.isActive():
            return True
    force_off(dom)
    return False


def _press_power_button(dom: Any) -> None:
    try:
        dom.shutdownFlags(libvirt.VIR_DOMAIN_SHUTDOWN_ACPI_POWER_BTN)
    except libvirt.libvirtError as error:
        if error.get_error_code() != libvirt.VIR_ERR_OPERATION_INVALID:
            raise


def wait_active(dom: Any, timeout: float, sleep: Callable[[float], None] = time.sleep) -> bool:
    """After create(): whether the domain is running within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if dom.isActive():
            return True
        sleep(POLL)
    return bool(dom.isActive())
