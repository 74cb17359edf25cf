"""What a guest learns about itself: the metadata content, one builder for both
the metadata API and the config drive (Nova's ``nova.api.metadata.base``).

Pure: an ``InstanceMetadata`` is built from an ``Instance`` (and its network
info cache) plus a few settings passed in, and answers paths of the
OpenStack and EC2 trees. No database, no options, no I/O.
"""

from saphira.metadata.content import InstanceMetadata, Settings
from saphira.metadata.tree import Item, listing, lookup

__all__ = ["InstanceMetadata", "Item", "Settings", "listing", "lookup"]
