"""Placement tables, typed with SQLAlchemy 2 ``Mapped[]``.

Resource classes and traits are stored by name: the standard ones come from
os-resource-classes and os-traits in code, only custom ones get rows. A
provider's ``generation`` is the compare-and-swap token every change to the
provider (inventory, traits, aggregates, allocations against it) bumps.
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

UUID = sa.String(36)
NAME = sa.String(255)
Timestamp = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")


class Base(DeclarativeBase):
    pass


class ResourceProvider(Base):
    __tablename__ = "resource_providers"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(UUID, unique=True)
    name: Mapped[str] = mapped_column(sa.String(200), unique=True)
    generation: Mapped[int] = mapped_column(default=0)
    root_provider_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("resource_providers.id"), index=True
    )
    parent_provider_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("resource_providers.id"), index=True
    )
    updated_at: Mapped[dt.datetime] = mapped_column(Timestamp)


class Inventory(Base):
    __tablename__ = "inventories"
    __table_args__ = (
        sa.UniqueConstraint("resource_provider_id", "resource_class", name="uq_inventory_rp_rc"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    resource_provider_id: Mapped[int] = mapped_column(sa.ForeignKey("resource_providers.id"))
    resource_class: Mapped[str] = mapped_column(NAME)
    total: Mapped[int] = mapped_column(sa.BigInteger)
    reserved: Mapped[int] = mapped_column(sa.BigInteger)
    min_unit: Mapped[int] = mapped_column(sa.BigInteger)
    max_unit: Mapped[int] = mapped_column(sa.BigInteger)
    step_size: Mapped[int] = mapped_column(sa.BigInteger)
    allocation_ratio: Mapped[float] = mapped_column(sa.Float)


class Consumer(Base):
    __tablename__ = "consumers"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(UUID, unique=True)
    project_id: Mapped[str] = mapped_column(NAME, index=True)
    user_id: Mapped[str] = mapped_column(NAME)
    generation: Mapped[int] = mapped_column(default=0)


class Allocation(Base):
    __tablename__ = "allocations"
    __table_args__ = (
        sa.Index("ix_allocations_rp_rc", "resource_provider_id", "resource_class"),
        sa.Index("ix_allocations_consumer", "consumer_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    resource_provider_id: Mapped[int] = mapped_column(sa.ForeignKey("resource_providers.id"))
    consumer_id: Mapped[str] = mapped_column(UUID)
    resource_class: Mapped[str] = mapped_column(NAME)
    used: Mapped[int] = mapped_column(sa.BigInteger)


class CustomResourceClass(Base):
    __tablename__ = "resource_classes"

    name: Mapped[str] = mapped_column(NAME, primary_key=True)


class CustomTrait(Base):
    __tablename__ = "traits"

    name: Mapped[str] = mapped_column(NAME, primary_key=True)


class ProviderTrait(Base):
    __tablename__ = "resource_provider_traits"

    resource_provider_id: Mapped[int] = mapped_column(
        sa.ForeignKey("resource_providers.id"), primary_key=True
    )
    trait: Mapped[str] = mapped_column(NAME, primary_key=True, index=True)


class ProviderAggregate(Base):
    __tablename__ = "resource_provider_aggregates"

    resource_provider_id: Mapped[int] = mapped_column(
        sa.ForeignKey("resource_providers.id"), primary_key=True
    )
    aggregate: Mapped[str] = mapped_column(UUID, primary_key=True, index=True)
