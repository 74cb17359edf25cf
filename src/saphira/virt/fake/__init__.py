"""The fake virt driver: deterministic in-memory guests, fault injection and
many simulated hypervisors per process. A product feature (simulation, scale
tests, CI without a hypervisor), not a test double."""

from saphira.virt.fake.driver import FakeDriver
from saphira.virt.fake.faults import FaultInjector

__all__ = ["FakeDriver", "FaultInjector"]
