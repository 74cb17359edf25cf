"""The HTTP services. ``wsgi`` is the small common layer every API is built on;
``auth`` is the one token-validation middleware every API but identity wraps
itself in."""
