"""``compute_driver`` names (Nova's) to driver classes.

Imports are lazy so a compute host never loads a driver it does not use
(libvirt-python need not be installed for the fake driver).
"""

from __future__ import annotations

import importlib

from oslo_config import cfg

from saphira.exception import ConfigError
from saphira.virt.driver import ComputeDriver

DRIVERS = {
    "fake.FakeDriver": "saphira.virt.fake.driver:FakeDriver",
    "libvirt.LibvirtDriver": "saphira.virt.libvirt.driver:LibvirtDriver",
}


def driver_class(name: str) -> type[ComputeDriver]:
    target = DRIVERS.get(name)
    if target is None:
        raise ConfigError(
            detail=f"[DEFAULT] compute_driver: unknown driver {name!r} "
            f"(choose from {', '.join(sorted(DRIVERS))})"
        )
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ConfigError(
            detail=f"[DEFAULT] compute_driver: {name} is not available here: {error}"
        ) from None
    cls: type[ComputeDriver] = getattr(module, attr)
    return cls


def load_drivers(conf: cfg.ConfigOpts) -> list[ComputeDriver]:
    """One driver per node this compute host serves (several for the fake one)."""
    return list(driver_class(conf.compute_driver).from_conf(conf))
