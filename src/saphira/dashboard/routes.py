"""The dashboard's URL table: what each route is, and whether it needs a session.

``routes()`` is the table the app is built from, as each API package's is;
tests hold every route to an entry of their access table.
"""

from __future__ import annotations

from werkzeug.routing import Map, Rule

_GET, _POST = ["GET"], ["POST"]
_I = "/project/instances"
_N, _G = "/project/networks", "/project/security_groups"
_SUB, _RULE = f"{_N}/<network_id>/subnets", f"{_G}/<group_id>/rules"
# Reachable without a session: the login form, logging in, the static files.
PUBLIC = frozenset({"login_form", "login", "static"})


def routes() -> list[Rule]:
    return [
        Rule("/", endpoint="home", methods=_GET),
        Rule("/auth/login", endpoint="login_form", methods=_GET),
        Rule("/auth/login", endpoint="login", methods=_POST),
        Rule("/auth/logout", endpoint="logout", methods=_POST),
        Rule("/auth/switch", endpoint="switch", methods=_POST),
        Rule(_I, endpoint="instances", methods=_GET),
        Rule(f"{_I}/events", endpoint="events", methods=_GET),
        Rule(f"{_I}/launch", endpoint="launch_form", methods=_GET),
        Rule(f"{_I}/launch", endpoint="launch", methods=_POST),
        Rule(f"{_I}/<server_id>", endpoint="detail", methods=_GET),
        Rule(f"{_I}/<server_id>/confirm/<name>", endpoint="confirm", methods=_GET),
        Rule(f"{_I}/<server_id>/action", endpoint="act", methods=_POST),
        Rule("/static/<path:name>", endpoint="static", methods=_GET),
        *_network_routes(),
        *admin_routes(),
        *project_routes(),
        *_detail_routes(),
    ]


def _network_routes() -> list[Rule]:
    """Networks and Security groups (``views/networks.py`` … ``views/rules.py``)."""
    return [
        Rule(_N, endpoint="networks", methods=_GET),
        Rule(f"{_N}/create", endpoint="network_form", methods=_GET),
        Rule(f"{_N}/create", endpoint="network_create", methods=_POST),
        Rule(f"{_N}/<network_id>", endpoint="network", methods=_GET),
        Rule(f"{_N}/<network_id>/delete", endpoint="network_confirm", methods=_GET),
        Rule(f"{_N}/<network_id>/delete", endpoint="network_delete", methods=_POST),
        Rule(f"{_SUB}/add", endpoint="subnet_form", methods=_GET),
        Rule(f"{_SUB}/add", endpoint="subnet_create", methods=_POST),
        Rule(f"{_SUB}/<subnet_id>/delete", endpoint="subnet_confirm", methods=_GET),
        Rule(f"{_SUB}/<subnet_id>/delete", endpoint="subnet_delete", methods=_POST),
        Rule(_G, endpoint="secgroups", methods=_GET),
        Rule(_G, endpoint="secgroup_create", methods=_POST),
        Rule(f"{_G}/<group_id>", endpoint="secgroup", methods=_GET),
        Rule(f"{_G}/<group_id>/delete", endpoint="secgroup_confirm", methods=_GET),
        Rule(f"{_G}/<group_id>/delete", endpoint="secgroup_delete", methods=_POST),
        Rule(f"{_RULE}/add", endpoint="rule_form", methods=_GET),
        Rule(f"{_RULE}/add", endpoint="rule_add", methods=_POST),
        Rule(f"{_RULE}/<rule_id>/delete", endpoint="rule_confirm", methods=_GET),
        Rule(f"{_RULE}/<rule_id>/delete", endpoint="rule_delete", methods=_POST),
    ]


_A = "/admin"


def admin_routes() -> list[Rule]:
    """The Admin group: every view refuses a session without the admin role (403)."""
    return [
        Rule(f"{_A}/flavors", endpoint="admin_flavors", methods=_GET),
        Rule(f"{_A}/flavors/create", endpoint="admin_flavor_form", methods=_GET),
        Rule(f"{_A}/flavors/create", endpoint="admin_flavor_create", methods=_POST),
        Rule(f"{_A}/flavors/<flavor_id>/delete", endpoint="admin_flavor_confirm", methods=_GET),
        Rule(f"{_A}/flavors/<flavor_id>/delete", endpoint="admin_flavor_delete", methods=_POST),
        Rule(f"{_A}/flavors/<flavor_id>/access", endpoint="admin_flavor_access", methods=_GET),
        Rule(f"{_A}/flavors/<flavor_id>/access", endpoint="admin_flavor_share", methods=_POST),
        Rule(f"{_A}/hypervisors", endpoint="admin_hypervisors", methods=_GET),
        Rule(f"{_A}/services", endpoint="admin_services", methods=_GET),
        Rule(f"{_A}/services/<service_id>", endpoint="admin_service_change", methods=_POST),
        Rule(f"{_A}/agents", endpoint="admin_agents", methods=_GET),
        Rule(f"{_A}/agents/<agent_id>", endpoint="admin_agent", methods=_GET),
        Rule(f"{_A}/projects", endpoint="admin_projects", methods=_GET),
        Rule(f"{_A}/projects", endpoint="admin_project_create", methods=_POST),
        Rule(f"{_A}/projects/<project_id>", endpoint="admin_project", methods=_GET),
        Rule(f"{_A}/projects/<project_id>/roles", endpoint="admin_project_roles", methods=_POST),
        Rule(f"{_A}/users", endpoint="admin_users", methods=_GET),
        Rule(f"{_A}/users", endpoint="admin_user_create", methods=_POST),
    ]


# Images, Key pairs and Overview (issue 14's second part).
_IM, _KP = "/project/images", "/project/key_pairs"


def project_routes() -> list[Rule]:
    return [
        Rule("/project/overview", endpoint="overview", methods=_GET),
        Rule(_IM, endpoint="images", methods=_GET),
        Rule(f"{_IM}/create", endpoint="image_upload_form", methods=_GET),
        Rule(f"{_IM}/create", endpoint="image_upload", methods=_POST),
        Rule(f"{_IM}/<image_id>", endpoint="image", methods=_GET),
        Rule(f"{_IM}/<image_id>/progress", endpoint="image_progress", methods=_GET),
        Rule(f"{_IM}/<image_id>/delete", endpoint="image_confirm", methods=_GET),
        Rule(f"{_IM}/<image_id>/delete", endpoint="image_delete", methods=_POST),
        Rule(_KP, endpoint="keypairs", methods=_GET),
        Rule(f"{_KP}/create", endpoint="keypair_create_form", methods=_GET),
        Rule(f"{_KP}/create", endpoint="keypair_create", methods=_POST),
        Rule(f"{_KP}/import", endpoint="keypair_import_form", methods=_GET),
        Rule(f"{_KP}/import", endpoint="keypair_import", methods=_POST),
        Rule(f"{_KP}/<name>/created", endpoint="keypair_created", methods=_GET),
        Rule(f"{_KP}/<name>/download", endpoint="keypair_download", methods=_POST),
        Rule(f"{_KP}/<name>/delete", endpoint="keypair_confirm", methods=_GET),
        Rule(f"{_KP}/<name>/delete", endpoint="keypair_delete", methods=_POST),
    ]


def _detail_routes() -> list[Rule]:
    """An instance's page: its live stream, the resize and snapshot forms."""
    return [
        Rule(f"{_I}/<server_id>/events", endpoint="detail_events", methods=_GET),
        Rule(f"{_I}/<server_id>/resize", endpoint="resize_form", methods=_GET),
        Rule(f"{_I}/<server_id>/resize", endpoint="resize", methods=_POST),
        Rule(f"{_I}/<server_id>/snapshot", endpoint="snapshot_form", methods=_GET),
        Rule(f"{_I}/<server_id>/snapshot", endpoint="snapshot", methods=_POST),
        Rule(f"{_I}/<server_id>/verify", endpoint="verify", methods=_GET),  # issue 15
    ]


def url_map() -> Map:
    return Map(routes(), strict_slashes=False)
