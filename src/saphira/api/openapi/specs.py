"""Every API's ``ApiSpec`` by catalog type."""

from __future__ import annotations

from saphira.api.image.app import Settings
from saphira.api.openapi import compute, identity, image, metadata, network, placement
from saphira.api.openapi.model import ApiSpec

FIXED: dict[str, ApiSpec] = {
    spec.name: spec
    for spec in (compute.SPEC, identity.SPEC, network.SPEC, placement.SPEC, metadata.SPEC)
}


def image_spec(settings: Settings) -> ApiSpec:
    """The image API's, whose create body names the configured disk and container formats."""
    return image.spec(settings)
