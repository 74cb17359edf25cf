"""Flavor look-ups other code shares (the compute API, later the server builder)."""

from __future__ import annotations

import sqlalchemy as sa
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


def visible_filter(project_id: str | None) -> sa.ColumnElement[bool]:
    """Public flavors and private ones shared with the project (Nova's non-admin list)."""
    shared = sa.select(FlavorProject.flavor_id).where(FlavorProject.project_id == project_id)
    return sa.or_(Flavor.is_public.is_(True), Flavor.id.in_(shared))
