"""Thin process entry points; the logic lives in the packages they call."""
