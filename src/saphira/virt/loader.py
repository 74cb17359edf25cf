"""``compute_driver`` names (Nova's) to driver classes.

Imports are lazy so a compute host never loads a driver it does not use
(libvirt-python need not be installed for the fake driver). ``auto`` picks
libvirt where it can run and the fake driver elsewhere, so ``saphira up``
works on a laptop without libvirt and boots real guests where it is.
"""

from __future__ import annotations

import importlib
import logging

from oslo_config import cfg

from saphira.exception import ConfigError
from saphira.virt.driver import ComputeDriver
from saphira.virt.libvirt import daemons
from saphira.virt.libvirt.machine import DaemonError

LOG = logging.getLogger(__name__)
AUTO = "auto"
FAKE = "fake.FakeDriver"
LIBVIRT = "libvirt.LibvirtDriver"
DRIVERS = {
    FAKE: "saphira.virt.fake.driver:FakeDriver",
    LIBVIRT: "saphira.virt.libvirt.driver:LibvirtDriver",
}


def _unknown(name: str) -> ConfigError:
    return ConfigError(
        detail=f"[DEFAULT] compute_driver: unknown driver {name!r} "
        f"(choose from {', '.join([AUTO, *sorted(DRIVERS)])})"
    )


def driver_class(name: str) -> type[ComputeDriver]:
    target = DRIVERS.get(name)
    if target is None:
        raise _unknown(name)
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ConfigError(
            detail=f"[DEFAULT] compute_driver: {name} is not available here: {error}"
        ) from None
    cls: type[ComputeDriver] = getattr(module, attr)
    return cls


def resolve_driver_name(conf: cfg.ConfigOpts) -> tuple[str, str]:
    """The driver ``[DEFAULT] compute_driver`` means here, and why (for the log).

    ``auto`` starts the libvirt daemons when they are installed but not
    running; an explicit name is kept (an unknown one is a ConfigError).
    """
    name = str(conf.compute_driver)
    if name != AUTO:
        if name not in DRIVERS:
            raise _unknown(name)
        return name, "set by [DEFAULT] compute_driver"
    missing = daemons.unavailable_reason()
    if missing is not None:
        return FAKE, missing
    uri = conf.libvirt.connection_uri or daemons.DEFAULT_URI
    try:
        report = daemons.ensure_running(uri)
    except DaemonError as error:
        return FAKE, error.message
    return LIBVIRT, f"{report.daemon} {report.version} at {uri}"


def load_drivers(conf: cfg.ConfigOpts) -> list[ComputeDriver]:
    """One driver per node this compute host serves (several for the fake one)."""
    name, why = resolve_driver_name(conf)
    LOG.info("compute driver: %s (%s)", name, why)
    return list(driver_class(name).from_conf(conf))
