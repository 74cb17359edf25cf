"""The Admin group's pages by route endpoint (``routes.admin_routes``)."""

from __future__ import annotations

from saphira.dashboard.app import View
from saphira.dashboard.views import admin_flavors, admin_hosts, admin_identity

ADMIN_VIEWS: dict[str, View] = {
    "admin_flavors": admin_flavors.listing,
    "admin_flavor_form": admin_flavors.form,
    "admin_flavor_create": admin_flavors.create,
    "admin_flavor_confirm": admin_flavors.confirm,
    "admin_flavor_delete": admin_flavors.delete,
    "admin_flavor_access": admin_flavors.access,
    "admin_flavor_share": admin_flavors.change_access,
    "admin_hypervisors": admin_hosts.hypervisors,
    "admin_services": admin_hosts.services,
    "admin_service_change": admin_hosts.change_service,
    "admin_agents": admin_hosts.agents,
    "admin_agent": admin_hosts.agent,
    "admin_projects": admin_identity.projects,
    "admin_project_create": admin_identity.create_project,
    "admin_project": admin_identity.project,
    "admin_project_roles": admin_identity.change_roles,
    "admin_users": admin_identity.users,
    "admin_user_create": admin_identity.create_user,
}
