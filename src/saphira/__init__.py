"""Saphira: a compact OpenStack-compatible compute cloud."""

__version__ = "0.1.0"
