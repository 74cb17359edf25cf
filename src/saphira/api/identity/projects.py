"""/v3/domains and /v3/projects."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.identity import schemas, views
from saphira.api.identity.app import Call, route
from saphira.api.wsgi import json_response
from saphira.db.identity.models import Domain, Project
from saphira.exception import BadRequest
from saphira.identity import resources, store

_DOMAIN_COLUMNS = ("name", "description", "enabled")
_PROJECT_COLUMNS = ("name", "description", "enabled")


def _split(
    body: dict[str, Any], columns: tuple[str, ...], ignored: tuple[str, ...]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Column values, and the rest (kept as Keystone "extra" attributes)."""
    fields = {k: v for k, v in body.items() if k in columns}
    extra = {k: v for k, v in body.items() if k not in columns and k not in ignored}
    return fields, extra


def list_domains(call: Call) -> Response:
    call.enforce("identity:list_domains")
    query = sa.select(Domain).order_by(Domain.name)
    if "name" in call.request.args:
        query = query.where(Domain.name == call.request.args["name"])
    enabled = call.query_bool("enabled")
    if enabled is not None:
        query = query.where(Domain.enabled.is_(enabled))
    domains = [views.domain(call.base, d) for d in call.session.scalars(query)]
    return json_response({"domains": domains, "links": call.list_links()})


def create_domain(call: Call) -> Response:
    call.enforce("identity:create_domain")
    body = call.body(schemas.DOMAIN_CREATE)["domain"]
    fields, extra = _split(body, _DOMAIN_COLUMNS, ("id", "links", "tags", "options"))
    fields.setdefault("enabled", True)
    domain = resources.create_domain(call.session, extra=store.dump_extra(extra), **fields)
    return json_response({"domain": views.domain(call.base, domain)}, status=201)


def get_domain(call: Call, domain_id: str) -> Response:
    call.enforce("identity:get_domain", {"target.domain.id": domain_id})
    domain = resources.get_domain(call.session, domain_id)
    return json_response({"domain": views.domain(call.base, domain)})


def update_domain(call: Call, domain_id: str) -> Response:
    call.enforce("identity:update_domain", {"target.domain.id": domain_id})
    body = call.body(schemas.DOMAIN_UPDATE)["domain"]
    domain = resources.get_domain(call.session, domain_id)
    fields, extra = _split(body, _DOMAIN_COLUMNS, ("id", "links", "tags", "options"))
    store.apply_update(domain, fields, extra)
    store.flush(call.session, "domain")
    return json_response({"domain": views.domain(call.base, domain)})


def delete_domain(call: Call, domain_id: str) -> Response:
    call.enforce("identity:delete_domain", {"target.domain.id": domain_id})
    resources.delete_domain(call.session, resources.get_domain(call.session, domain_id))
    return Response(status=204)


def list_projects(call: Call) -> Response:
    call.enforce("identity:list_projects")
    args = call.request.args
    query = sa.select(Project).order_by(Project.name)
    for key in ("name", "domain_id"):
        if key in args:
            query = query.where(getattr(Project, key) == args[key])
    if "parent_id" in args:
        parent = args["parent_id"]
        top = sa.and_(Project.parent_id.is_(None), Project.domain_id == parent)
        query = query.where(sa.or_(Project.parent_id == parent, top))
    enabled = call.query_bool("enabled")
    if enabled is not None:
        query = query.where(Project.enabled.is_(enabled))
    projects = [views.project(call.base, p) for p in call.session.scalars(query)]
    return json_response({"projects": projects, "links": call.list_links()})


def create_project(call: Call) -> Response:
    call.enforce("identity:create_project")
    body = call.body(schemas.PROJECT_CREATE)["project"]
    domain_id = body.get("domain_id") or call.default_domain_id()
    parent_id = body.get("parent_id")
    if parent_id == domain_id:
        parent_id = None  # Keystone names the domain as a top-level project's parent
    fields, extra = _split(
        body, _PROJECT_COLUMNS, ("domain_id", "parent_id", "is_domain", "id", "links", "options")
    )
    fields.setdefault("enabled", True)
    project = resources.create_project(
        call.session,
        domain_id=domain_id,
        parent_id=parent_id,
        extra=store.dump_extra(extra),
        **fields,
    )
    return json_response({"project": views.project(call.base, project)}, status=201)


def get_project(call: Call, project_id: str) -> Response:
    call.enforce("identity:get_project", {"target.project.id": project_id})
    project = resources.get_project(call.session, project_id)
    return json_response({"project": views.project(call.base, project)})


def update_project(call: Call, project_id: str) -> Response:
    call.enforce("identity:update_project", {"target.project.id": project_id})
    body = call.body(schemas.PROJECT_UPDATE)["project"]
    project = resources.get_project(call.session, project_id)
    if body.get("domain_id", project.domain_id) != project.domain_id:
        raise BadRequest("Update of `domain_id` is not allowed.")
    fields, extra = _split(
        body, _PROJECT_COLUMNS, ("domain_id", "parent_id", "is_domain", "id", "links", "options")
    )
    store.apply_update(project, fields, extra)
    store.flush(call.session, "project")
    return json_response({"project": views.project(call.base, project)})


def delete_project(call: Call, project_id: str) -> Response:
    call.enforce("identity:delete_project", {"target.project.id": project_id})
    resources.delete_project(call.session, resources.get_project(call.session, project_id))
    return Response(status=204)


def routes() -> list[Rule]:
    return [
        route("/v3/domains", ["GET"], list_domains),
        route("/v3/domains", ["POST"], create_domain),
        route("/v3/domains/<domain_id>", ["GET"], get_domain),
        route("/v3/domains/<domain_id>", ["PATCH"], update_domain),
        route("/v3/domains/<domain_id>", ["DELETE"], delete_domain),
        route("/v3/projects", ["GET"], list_projects),
        route("/v3/projects", ["POST"], create_project),
        route("/v3/projects/<project_id>", ["GET"], get_project),
        route("/v3/projects/<project_id>", ["PATCH"], update_project),
        route("/v3/projects/<project_id>", ["DELETE"], delete_project),
    ]
