"""Virt drivers: the small typed interface the compute agent drives
(``driver.ComputeDriver``), its argument types (``types``), the loader for
``compute_driver`` and the fake driver. No database access here, ever."""
