"""Developer tools that ship with Saphira but are not part of any service:
the tiny test guest image builder (``guest_image``)."""
