"""The identity service without HTTP: passwords, keys, tokens, roles, catalog.

The Keystone v3 API (saphira.api.identity) is a thin edge over this package,
and `saphira-manage bootstrap` and `saphira up` call it directly.
"""
