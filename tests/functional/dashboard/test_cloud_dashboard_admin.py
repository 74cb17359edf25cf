"""The dashboard's Admin group against a real `saphira up` (fake driver), through HTTP:
an admin creates, shares and deletes a flavor, reads the hypervisor's state and its
usage from placement, disables a compute service with a reason and enables it, forces
it down and back, sees the network agents alive with their bridge mapping, creates a
project and a user, gives and takes away a role; a member is refused each of these
pages and posts, and changes nothing."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from saphira import conf as saphira_conf
from saphira.db.network import make_network_engine
from saphira.db.transactions import Database
from saphira.netsvc.agents import AgentRegistry
from saphira.netsvc.settings import Settings
from saphira.objects.network import DHCP_AGENT, OVS_AGENT
from tests.functional.clients import sdk
from tests.functional.cloud import Cloud
from tests.functional.dashboard.world import Visitor, World

pytestmark = pytest.mark.functional
NOT_ADMIN = "This page is for administrators"
NO_ID = "00000000-0000-4000-8000-000000000000"


@pytest.fixture(scope="module")
def conn(cloud: Cloud) -> Any:
    return sdk(cloud.clouds_yaml, "admin")


@pytest.fixture
def admin(cloud: Cloud, world: World) -> Visitor:
    password = yaml.safe_load(cloud.clouds_yaml.read_text())["clouds"]["admin"]["auth"]["password"]
    visitor = Visitor(world.base)
    assert visitor.login("admin", password).status_code == 303
    return visitor


def _compute_service(conn: Any) -> Any:
    (found,) = [s for s in conn.compute.services() if str(s.binary).endswith("compute")]
    return found


def _row(page: str, row_id: str) -> str:
    return page[page.index(f'id="{row_id}"') :].split("</tr>")[0]


def test_a_member_is_refused_every_admin_page_and_post(
    conn: Any, world: World, demo: Visitor
) -> None:
    instances = demo.get("/project/instances")
    assert 'aria-label="Admin"' not in instances.text and "/admin/flavors" not in instances.text
    service = _compute_service(conn)
    flavor, project = world.flavor_id, world.second_project
    for path in ("flavors", "flavors/create", f"flavors/{flavor}/delete",
                 f"flavors/{flavor}/access", "hypervisors", "services", "agents",
                 f"agents/{NO_ID}", "projects", f"projects/{project}", "users"):  # fmt: skip
        page = demo.get(f"/admin/{path}")
        assert page.status_code == 403 and NOT_ADMIN in page.text, path
    before = (len(list(conn.compute.flavors(is_public=None))), len(list(conn.identity.users())))
    demo.get("/project/instances")
    posts = {
        "flavors/create": {"name": "by-demo", "vcpus": "1", "ram": "64", "disk": "1",
                           "ephemeral": "0", "swap": "0", "public": "yes"},
        f"flavors/{flavor}/delete": {"confirmed": "yes"},
        f"flavors/{flavor}/access": {"change": "add", "project_id": project},
        f"services/{service.id}": {"action": "disable", "reason": "by demo"},
        "projects": {"name": "by-demo"},
        f"projects/{project}/roles": {"change": "grant", "user_id": "x", "role_id": "y"},
        "users": {"name": "by-demo", "password": "by-demo-pw", "confirm": "by-demo-pw"},
    }  # fmt: skip
    for path, form in posts.items():
        refused = demo.post(f"/admin/{path}", form)
        assert refused.status_code == 403 and NOT_ADMIN in refused.text, path
    after = (len(list(conn.compute.flavors(is_public=None))), len(list(conn.identity.users())))
    assert after == before and conn.compute.get_flavor(flavor).name == "dash.tiny"
    assert _compute_service(conn).status == "enabled"
    assert not [p for p in conn.identity.projects() if p.name == "by-demo"]


def test_create_share_and_delete_a_private_flavor(conn: Any, world: World, admin: Visitor) -> None:
    assert 'aria-label="Admin"' in admin.get("/project/instances").text
    admin.get("/admin/flavors/create")
    form = {"name": "dash.private", "vcpus": "2", "ram": "128", "disk": "1", "ephemeral": "1",
            "swap": "16"}  # fmt: skip
    wrong = admin.post("/admin/flavors/create", {**form, "vcpus": "two"})
    assert wrong.status_code == 400 and "vCPUs must be a whole number." in wrong.text
    assert admin.post("/admin/flavors/create", form).status_code == 303
    (made,) = [f for f in conn.compute.flavors(is_public=None) if f.name == "dash.private"]
    assert (made.vcpus, made.ram, made.disk, made.ephemeral, made.swap, made.is_public) == (
        2, 128, 1, 1, 16, False,
    )  # fmt: skip
    listed = _row(admin.get("/admin/flavors").text, f"flavor-{made.id}")
    assert "dash.private" in listed and "<td>No</td>" in listed and "/access" in listed
    access = f"/admin/flavors/{made.id}/access"
    admin.get(access)
    assert (
        admin.post(access, {"change": "add", "project_id": world.second_project}).status_code == 303
    )
    page = admin.get(access).text
    assert f'id="access-{world.second_project}"' in page and "dash-two" in page
    assert [a["tenant_id"] for a in conn.compute.get_flavor_access(made.id)] == [
        world.second_project
    ]
    assert (
        admin.post(access, {"change": "remove", "project_id": world.second_project}).status_code
        == 303
    )
    assert list(conn.compute.get_flavor_access(made.id)) == []
    asked = admin.post(f"/admin/flavors/{made.id}/delete", {})
    assert asked.status_code == 303 and asked.headers["Location"].endswith("/delete")
    confirm = admin.get(asked.headers["Location"])
    assert "no new instance can be launched" in confirm.text
    assert conn.compute.find_flavor(made.id) is not None  # nothing deleted unconfirmed
    done = admin.post(f"/admin/flavors/{made.id}/delete", {"confirmed": "yes"})
    assert done.status_code == 303
    assert conn.compute.find_flavor(made.id) is None
    public = admin.get(f"/admin/flavors/{world.flavor_id}/access")
    assert public.status_code == 200 and "every project may use it" in public.text
    gone = admin.get(f"/admin/flavors/{made.id}/access")
    assert gone.status_code == 404 and "Traceback" not in gone.text


def _usage(page: str, resource: str) -> tuple[int, int]:
    found = re.search(rf'data-resource="{resource}" data-used="(\d+)" data-capacity="(\d+)"', page)
    assert found, page
    return int(found[1]), int(found[2])


def _active(cloud: Cloud, world: World, name: str) -> str:
    demo = sdk(cloud.clouds_yaml, "demo")
    server = demo.compute.create_server(name=name, image_id=world.image_id,
                                        flavor_id=world.flavor_id, networks="none")  # fmt: skip
    demo.compute.wait_for_server(server, status="ACTIVE", wait=60, interval=0.5)
    return str(server.id)


def test_the_hypervisor_is_up_with_its_usage_from_placement(
    cloud: Cloud, conn: Any, world: World, admin: Visitor
) -> None:
    _active(cloud, world, "dash-usage")  # 1 vCPU, 64 MiB, 1 GiB on the only host
    (hypervisor,) = conn.compute.hypervisors(details=True)
    page = admin.get("/admin/hypervisors").text
    row = _row(page, f"hypervisor-{hypervisor.id}")
    summary = page[page.index('id="summary"') : page.index('id="hypervisors"')]
    assert 'data-state="up"' in row and 'data-status="enabled"' in row
    assert hypervisor.name in row and f"<td>{hypervisor.host_ip or '—'}</td>" in row
    assert "from placement" in row  # the compute API serves 2.88: no usage of its own
    provider = conn.placement.get_resource_provider(hypervisor.id)
    usages = conn.placement.fetch_resource_provider_usages(provider).usages
    assert usages["VCPU"] >= 1 and usages["MEMORY_MB"] >= 64
    for resource in ("VCPU", "MEMORY_MB", "DISK_GB"):
        used, capacity = _usage(row, resource)
        assert used == usages.get(resource, 0) and capacity > 0, resource
        assert _usage(summary, resource) == (used, capacity)  # the only host: the same
    consumers = len(list(conn.placement.resource_provider_allocations(provider)))
    assert consumers >= 1 and f'<td class="vms">{consumers}</td>' in row


def test_disable_a_compute_service_with_a_reason_force_it_down_and_back(
    conn: Any, admin: Visitor
) -> None:
    service = _compute_service(conn)
    path = f"/admin/services/{service.id}"
    admin.get("/admin/services")
    done = admin.post(path, {"action": "disable", "reason": "  disk   swap\n"})
    assert done.status_code == 303
    changed = _compute_service(conn)
    assert (changed.status, changed.disabled_reason) == ("disabled", "disk swap")
    page = admin.get("/admin/services").text
    row = _row(page, f"service-{service.id}")
    (scheduler,) = [s for s in conn.compute.services() if str(s.binary).endswith("scheduler")]
    assert "<form" not in _row(page, f"service-{scheduler.id}")  # Nova updates compute only
    assert 'data-status="disabled"' in row and "disk swap" in row and 'value="enable"' in row
    assert admin.post(path, {"action": "force-down"}).status_code == 303
    assert _compute_service(conn).is_forced_down is True
    row = _row(admin.get("/admin/services").text, f"service-{service.id}")
    assert "(forced down)" in row and 'data-state="down"' in row
    assert admin.post(path, {"action": "unforce"}).status_code == 303
    assert admin.post(path, {"action": "enable"}).status_code == 303
    back = _compute_service(conn)
    assert (back.status, back.disabled_reason, back.is_forced_down) == ("enabled", None, False)
    unknown = admin.post(f"/admin/services/{NO_ID}", {"action": "enable"})
    assert unknown.status_code == 404 and "Traceback" not in unknown.text


def _report_agents(cloud: Cloud) -> None:
    """An OVS agent with physnet1:br-physnet1 and a DHCP agent beat, as their hosts'
    agents would over RPC (this cloud runs none): written where the service reads."""
    conf = saphira_conf.load([])
    conf.set_override("state_path", str(cloud.state_dir))
    db = Database(make_network_engine(conf))
    try:
        registry = AgentRegistry(db, Settings())
        mapping = {"bridge_mappings": {"physnet1": "br-physnet1"}}
        registry.report_state(OVS_AGENT, "saphira-l2-agent", "node-a", mapping)
        registry.report_state(DHCP_AGENT, "saphira-dhcp-agent", "node-a", {}, "dhcp_agent")
    finally:
        db.engine.dispose()
        conf.clear_override("state_path")


def test_the_network_agents_are_alive_with_the_bridge_mapping(
    cloud: Cloud, conn: Any, admin: Visitor
) -> None:
    _report_agents(cloud)
    page = admin.get("/admin/agents").text
    agents = {a.agent_type: a for a in conn.network.agents()}
    ovs, dhcp = agents[OVS_AGENT], agents[DHCP_AGENT]
    for agent in (ovs, dhcp):
        assert 'data-alive="yes"' in _row(page, f"agent-{agent.id}")
    assert "<code>physnet1:br-physnet1</code>" in _row(page, f"agent-{ovs.id}")
    shown = admin.get(f"/admin/agents/{ovs.id}").text
    assert (
        'id="alive">Alive<' in shown
        and "<dt>bridge_mappings</dt><dd>physnet1: br-physnet1" in shown
    )
    missing = admin.get(f"/admin/agents/{NO_ID}")
    assert missing.status_code == 404 and "Traceback" not in missing.text


def test_create_a_project_and_a_user_give_and_take_away_a_role(
    conn: Any, world: World, admin: Visitor
) -> None:
    admin.get("/admin/projects")
    assert (
        admin.post(
            "/admin/projects", {"name": "dash-made", "description": "by the admin"}
        ).status_code
        == 303
    )
    (project,) = [p for p in conn.identity.projects() if p.name == "dash-made"]
    assert "dash-made" in _row(admin.get("/admin/projects").text, f"project-{project.id}")
    member, reader = conn.identity.find_role("member"), conn.identity.find_role("reader")
    admin.get("/admin/users")
    form = {"name": "dash-person", "password": "a-long-secret", "confirm": "a-long-secret",
            "project_id": project.id, "role_id": member.id}  # fmt: skip
    differ = admin.post("/admin/users", {**form, "confirm": "another-secret"})
    assert differ.status_code == 400 and "The two passwords differ." in differ.text
    assert "a-long-secret" not in differ.text  # a password is never sent back
    assert admin.post("/admin/users", form).status_code == 303
    half = admin.post("/admin/users", {**form, "name": "dash-half", "role_id": "no-such-role"})
    assert half.status_code == 404 and "The user dash-half was created, but the role" in half.text
    assert conn.identity.find_user("dash-half") is not None
    user = conn.identity.find_user("dash-person")
    assert user.default_project_id == project.id
    assert "dash-made" in _row(admin.get("/admin/users").text, f"user-{user.id}")
    page = f"/admin/projects/{project.id}"
    shown = _row(admin.get(page).text, f"member-{user.id}")
    assert "dash-person" in shown and ">member<" in shown
    person = Visitor(world.base)  # the new user logs in, landing in the new project
    assert person.login("dash-person", "a-long-secret").status_code == 303
    assert "selected>dash-made</option>" in person.get("/project/instances").text
    roles = f"{page}/roles"
    assert (
        admin.post(roles, {"change": "grant", "user_id": user.id, "role_id": reader.id}).status_code
        == 303
    )
    shown = _row(admin.get(page).text, f"member-{user.id}")
    assert ">member<" in shown and ">reader<" in shown
    assert (
        admin.post(
            roles, {"change": "revoke", "user_id": user.id, "role_id": member.id}
        ).status_code
        == 303
    )
    held = {
        a.role["id"]
        for a in conn.identity.role_assignments(scope_project_id=project.id, user_id=user.id)
    }
    assert held == {reader.id}
    again = admin.post(roles, {"change": "revoke", "user_id": user.id, "role_id": member.id})
    assert again.status_code == 404 and "Traceback" not in again.text  # the API's refusal
