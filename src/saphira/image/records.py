"""Image records in the database: sessions, look-ups, visibility and lists.

Who may see an image is decided here, in one place, as Glance decides it:
admins see all; others see public and community images, their project's own,
and images shared with their project.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from saphira.context import RequestContext
from saphira.db.image.models import Image, ImageMember, ImageProperty, ImageTag
from saphira.db.transactions import Database
from saphira.exception import BadRequest, NotFound

SORT_KEYS = (
    "name", "status", "container_format", "disk_format", "size", "id", "created_at",
    "updated_at", "visibility", "owner", "min_disk", "min_ram", "virtual_size",
)  # fmt: skip


STAGED = ("uploading", "importing")  # statuses whose data sits in the staging store


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


# One image's reads, built once with its id bound. Its properties and tags are read by
# two plain SELECTs rather than the relationships' selectin loaders, which cost more
# than the statements they run.
_ID = sa.bindparam("image_id", type_=sa.String())
_GET = (
    sa.select(Image)
    .where(Image.id == _ID)
    .options(orm.lazyload(Image.properties), orm.lazyload(Image.tags))
)
_LOCKED = _GET.with_for_update()
_PROPERTIES = sa.select(ImageProperty).where(ImageProperty.image_id == _ID)
_TAGS = sa.select(ImageTag).where(ImageTag.image_id == _ID)


def _children(session: Session, image: Image) -> None:
    """Load the image's properties and tags, unless this session already holds them."""
    unloaded = sa.inspect(image).unloaded
    for name, query in (("properties", _PROPERTIES), ("tags", _TAGS)):
        if name in unloaded:
            rows = list(session.scalars(query, {"image_id": image.id}))
            set_committed_value(image, name, rows)


class ImageNotFound(NotFound):
    msg_fmt = "No image found with ID %(image_id)s"


@dataclass
class ListQuery:
    """A list request after parsing: filters, sort order and the page."""

    filters: dict[str, str | int] = field(default_factory=dict)
    ids: list[str] | None = None
    names: list[str] | None = None
    tags: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    member_status: str = "accepted"
    visibility: str | None = None
    sort: list[tuple[str, str]] = field(default_factory=lambda: [("created_at", "desc")])
    limit: int = 25
    marker: str | None = None
    size_min: int | None = None
    size_max: int | None = None


class Records:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # The engine's own isolation, as Glance's (no READ COMMITTED override).
        self._database = Database(engine, read_committed=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._database.session() as session:
            yield session

    def get(self, session: Session, image_id: str, *, lock: bool = False) -> Image:
        """The image with its properties and tags loaded (``lock``: FOR UPDATE)."""
        image = session.scalars(_LOCKED if lock else _GET, {"image_id": image_id}).first()
        if image is None:
            raise ImageNotFound(image_id=image_id)
        _children(session, image)
        return image

    def visible(self, session: Session, ctx: RequestContext, image_id: str) -> Image:
        """The image if ``ctx`` may see it; 404 otherwise, never 403 (no existence leak)."""
        image = self.get(session, image_id)
        if not can_see(session, ctx, image):
            raise ImageNotFound(image_id=image_id)
        return image

    def owned_stats(self, session: Session, owner: str) -> tuple[int, int]:
        """(images, bytes of data) a project owns, for its quotas."""
        row = session.execute(
            sa.select(sa.func.count(Image.id), sa.func.coalesce(sa.func.sum(Image.size), 0)).where(
                Image.owner == owner
            )
        ).one()
        return int(row[0] or 0), int(row[1] or 0)

    def stored_bytes(self, session: Session, owner: str, exclude: str) -> int:
        """Bytes a project holds (active and staged images), but ``exclude``'s: its
        new data is the upload being counted (Glance's ``image_id`` of check_quota)."""
        query = sa.select(sa.func.coalesce(sa.func.sum(Image.size), 0)).where(
            Image.owner == owner, Image.status != "killed", Image.id != exclude
        )
        return int(session.execute(query).scalar_one() or 0)

    def staged_bytes(self, session: Session) -> int:
        """Bytes in the staging area for every project (images uploading or importing)."""
        query = sa.select(sa.func.coalesce(sa.func.sum(Image.size), 0)).where(
            Image.status.in_(STAGED)
        )
        return int(session.execute(query).scalar_one() or 0)

    def list(self, session: Session, ctx: RequestContext, query: ListQuery) -> list[Image]:
        """One page; BadRequest for an unknown marker, as Glance answers."""
        select = _filtered(sa.select(Image.id), ctx, query)
        for key, direction in query.sort:
            column = getattr(Image, key)
            select = select.order_by(column.desc() if direction == "desc" else column.asc())
        select = select.order_by(Image.id.desc())
        ids: list[str] = [str(row[0]) for row in session.execute(select)]
        start = 0
        if query.marker is not None:
            if query.marker not in ids:
                raise BadRequest(f"marker {query.marker} could not be found.")
            start = ids.index(query.marker) + 1
        page = list(ids[start : start + query.limit])
        if not page:
            return []
        images = {i.id: i for i in session.scalars(sa.select(Image).where(Image.id.in_(page)))}
        return [images[i] for i in page]


def member_of(session: Session, image_id: str, project: str | None) -> ImageMember | None:
    if project is None:
        return None
    return session.get(ImageMember, (image_id, project))


def can_see(session: Session, ctx: RequestContext, image: Image) -> bool:
    if ctx.is_admin or image.visibility in ("public", "community"):
        return True
    if image.owner is not None and image.owner == ctx.project_id:
        return True
    return image.visibility == "shared" and member_of(session, image.id, ctx.project_id) is not None


def _visibility(
    select: sa.Select[tuple[str]], ctx: RequestContext, query: ListQuery
) -> sa.Select[tuple[str]]:
    project = ctx.project_id
    own = Image.owner == project
    shared = sa.and_(
        Image.visibility == "shared",
        Image.id.in_(
            sa.select(ImageMember.image_id).where(
                ImageMember.member == project,
                *(
                    ()
                    if query.member_status == "all"
                    else (ImageMember.status == query.member_status,)
                ),
            )
        ),
    )
    wanted = query.visibility
    if wanted == "public":
        return select.where(Image.visibility == "public")
    if wanted == "community":
        return select.where(Image.visibility == "community")
    if wanted == "private":
        cond = Image.visibility == "private"
        return select.where(cond if ctx.is_admin else sa.and_(cond, own))
    if wanted == "shared":
        cond = Image.visibility == "shared"
        return select.where(cond if ctx.is_admin else sa.or_(sa.and_(cond, own), shared))
    if wanted == "all":
        return (
            select
            if ctx.is_admin
            else select.where(sa.or_(own, shared, Image.visibility.in_(("public", "community"))))
        )
    if ctx.is_admin:
        return select.where(sa.or_(Image.visibility != "community", own))
    return select.where(sa.or_(own, shared, Image.visibility == "public"))


def _filtered(
    select: sa.Select[tuple[str]], ctx: RequestContext, query: ListQuery
) -> sa.Select[tuple[str]]:
    select = _visibility(select, ctx, query)
    for key, value in query.filters.items():
        column = getattr(Image, key)
        if key in ("protected", "os_hidden"):
            select = select.where(column == (str(value).lower() == "true"))
        else:
            select = select.where(column == value)
    if "os_hidden" not in query.filters:
        select = select.where(Image.os_hidden.is_(False))
    if query.ids is not None:
        select = select.where(Image.id.in_(query.ids))
    if query.names is not None:
        select = select.where(Image.name.in_(query.names))
    for tag in query.tags:
        select = select.where(
            Image.id.in_(sa.select(ImageTag.image_id).where(ImageTag.value == tag))
        )
    for name, value in query.properties.items():
        select = select.where(
            Image.id.in_(
                sa.select(ImageProperty.image_id).where(
                    ImageProperty.name == name, ImageProperty.value == value
                )
            )
        )
    if query.size_min is not None:
        select = select.where(Image.size >= query.size_min)
    if query.size_max is not None:
        select = select.where(Image.size <= query.size_max)
    return select
