"""Neutron's wording for a rejected attribute, shared by the API and the logic."""

from __future__ import annotations

from saphira.exception import BadRequest


def bad_attr(attr: str, reason: str) -> BadRequest:
    """The 400 Neutron answers when one attribute's value is unacceptable."""
    return BadRequest(f"Invalid input for {attr}. Reason: {reason}.")
