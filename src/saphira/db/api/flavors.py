"""Flavor look-ups other code shares (the compute API, later the server builder)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy.orm import Session

from saphira.db.api.models import Flavor, FlavorProject
from saphira.exception import NotFound


class FlavorNotFound(NotFound):
    msg_fmt = "Flavor %(flavor_id)s could not be found."


def get(session: Session, flavorid: str) -> Flavor:
    row = session.scalars(sa.select(Flavor).filter_by(flavorid=flavorid)).one_or_none()
    if row is None:
        raise FlavorNotFound(flavor_id=flavorid)
    return row


def accessible(flavor: Flavor, project_id: str | None) -> bool:
    return flavor.is_public or any(p.project_id == project_id for p in flavor.projects)


def get_visible(session: Session, flavorid: str, project_id: str | None, is_admin: bool) -> Flavor:
    """The flavor if this caller may see it; a private one is a 404 to other projects."""
    flavor = get(session, flavorid)
    if not is_admin and not accessible(flavor, project_id):
        raise FlavorNotFound(flavor_id=flavorid)
    return flavor


# A server create's flavor: the extra specs joined into the one SELECT, the projects
# read (lazily) only for a private flavor a non-admin names; built once, with its key
# bound, as the cell database's hot reads are.
_FOR_SERVER = (
    sa.select(Flavor)
    .where(Flavor.flavorid == sa.bindparam("flavorid", type_=sa.String()))
    .options(orm.joinedload(Flavor.extra_specs), orm.lazyload(Flavor.projects))
)


def get_for_server(
    session: Session, flavorid: str, project_id: str | None, is_admin: bool
) -> Flavor:
    """``get_visible`` in one statement for a public flavor: read its extra specs (and,
    for a private one, its projects) in ``session``, before it closes."""
    flavor = session.scalars(_FOR_SERVER, {"flavorid": flavorid}).unique().one_or_none()
    if flavor is None or (not is_admin and not accessible(flavor, project_id)):
        raise FlavorNotFound(flavor_id=flavorid)
    return flavor


def visible_filter(project_id: str | None) -> sa.ColumnElement[bool]:
    """Public flavors and private ones shared with the project (Nova's non-admin list)."""
    shared = sa.select(FlavorProject.flavor_id).where(FlavorProject.project_id == project_id)
    return sa.or_(Flavor.is_public.is_(True), Flavor.id.in_(shared))
