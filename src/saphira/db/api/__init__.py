"""The API database: where each cell is, which host lives in which cell, and
which cell holds each instance (Nova's cells v2 mapping tables)."""
