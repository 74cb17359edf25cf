"""Image tables, typed with SQLAlchemy 2 ``Mapped[]``.

Glance's layout without its soft-delete columns: an image row, free-form
properties and tags in their own tables (so lists can filter on them), and
members. Sizes are BigInteger: images pass 2 GiB routinely.
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

ID = sa.String(36)
Timestamp = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")


class Base(DeclarativeBase):
    pass


class Image(Base):
    __tablename__ = "images"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    name: Mapped[str | None] = mapped_column(sa.String(255), index=True)
    status: Mapped[str] = mapped_column(sa.String(30), index=True)
    visibility: Mapped[str] = mapped_column(sa.String(20), index=True)
    owner: Mapped[str | None] = mapped_column(sa.String(255), index=True)
    protected: Mapped[bool] = mapped_column(default=False)
    os_hidden: Mapped[bool] = mapped_column(default=False)
    disk_format: Mapped[str | None] = mapped_column(sa.String(20))
    container_format: Mapped[str | None] = mapped_column(sa.String(20))
    size: Mapped[int | None] = mapped_column(sa.BigInteger)
    virtual_size: Mapped[int | None] = mapped_column(sa.BigInteger)
    checksum: Mapped[str | None] = mapped_column(sa.String(32))
    os_hash_algo: Mapped[str | None] = mapped_column(sa.String(64))
    os_hash_value: Mapped[str | None] = mapped_column(sa.String(128))
    min_disk: Mapped[int] = mapped_column(default=0)
    min_ram: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[dt.datetime] = mapped_column(Timestamp)
    updated_at: Mapped[dt.datetime] = mapped_column(Timestamp)

    properties: Mapped[list[ImageProperty]] = relationship(
        cascade="all, delete-orphan", lazy="selectin"
    )
    tags: Mapped[list[ImageTag]] = relationship(cascade="all, delete-orphan", lazy="selectin")
    members: Mapped[list[ImageMember]] = relationship(cascade="all, delete-orphan")


class ImageProperty(Base):
    __tablename__ = "image_properties"

    image_id: Mapped[str] = mapped_column(
        ID, sa.ForeignKey("images.id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    value: Mapped[str] = mapped_column(sa.Text)


class ImageTag(Base):
    __tablename__ = "image_tags"

    image_id: Mapped[str] = mapped_column(
        ID, sa.ForeignKey("images.id", ondelete="CASCADE"), primary_key=True
    )
    value: Mapped[str] = mapped_column(sa.String(255), primary_key=True)


class ImageMember(Base):
    __tablename__ = "image_members"

    image_id: Mapped[str] = mapped_column(
        ID, sa.ForeignKey("images.id", ondelete="CASCADE"), primary_key=True
    )
    member: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    status: Mapped[str] = mapped_column(sa.String(20))
    created_at: Mapped[dt.datetime] = mapped_column(Timestamp)
    updated_at: Mapped[dt.datetime] = mapped_column(Timestamp)
