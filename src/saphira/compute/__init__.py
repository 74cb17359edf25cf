"""The compute agent (one per host): runs instance actions through the virt driver
and reports to placement; every database write goes through the conductor."""
