"""Databases: SQLAlchemy 2 engines, models and Alembic migrations.

Three kinds of database, each with its own models and migration history:
``api`` (cell, host and instance mappings), ``cell`` (one per cell, cell0
included) and ``identity``.
"""
