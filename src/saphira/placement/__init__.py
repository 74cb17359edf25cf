"""Placement's backend: providers, inventories, allocations and candidates (no HTTP)."""
