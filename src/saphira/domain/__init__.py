"""Pure compute logic: instance states and their one transition table, the API
status mapping, quota math and sizing. Nothing here does I/O or reads options,
so every rule can be tested exhaustively and shared by the API, the conductor
and the compute agent alike.
"""
