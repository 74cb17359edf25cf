"""The dashboard against a real `saphira up` (fake driver), through HTTP as a browser
sends it: login, CSRF refusals, launch, the event stream reporting the build and
the deletion, the instance's page and actions, "No valid host" with its reasons,
the project switcher, another user's session, logout revoking the tokens."""

from __future__ import annotations

import base64
import re

import pytest

from tests.functional.clients import sdk
from tests.functional.cloud import Cloud
from tests.functional.dashboard.world import (
    Stream,
    Visitor,
    World,
    revocations,
)
from tests.polling import wait_for

pytestmark = pytest.mark.functional
NOT_HERE = "Not found in this project."


def _server_ids(cloud: Cloud) -> set[str]:
    return {str(s.id) for s in sdk(cloud.clouds_yaml, "demo").compute.servers()}


def _wait_status(cloud: Cloud, server_id: str, status: str) -> None:
    conn = sdk(cloud.clouds_yaml, "demo")
    wait_for(f"{server_id} never {status}",
             lambda: conn.compute.get_server(server_id).status == status,
             timeout=60, interval=0.5)  # fmt: skip


def _launched(cloud: Cloud, visitor: Visitor, world: World, name: str) -> str:
    before = _server_ids(cloud)
    answer = visitor.launch(world, name)
    assert answer.status_code == 303, answer.text
    (made,) = _server_ids(cloud) - before
    return made


def test_a_wrong_password_and_posts_without_the_token_are_refused(
    cloud: Cloud, world: World
) -> None:
    visitor = Visitor(world.base)
    wrong = visitor.login("demo", "not-the-password")
    assert wrong.status_code == 401 and "Wrong user name or password." in wrong.text
    assert visitor.login("demo", world.demo_password).status_code == 303
    before = _server_ids(cloud)
    visitor.get("/project/instances/launch")
    form = {"name": "forged", "image": world.image_id, "flavor": world.flavor_id}
    for token in ("", "forged-token"):
        refused = visitor.post("/project/instances/launch", form, token=token)
        assert refused.status_code == 403 and "security token" in refused.text
    assert _server_ids(cloud) == before


def test_a_launch_is_reported_live_from_build_to_active(
    cloud: Cloud, world: World, demo: Visitor
) -> None:
    stream = Stream(demo)
    try:
        made = _launched(cloud, demo, world, "dash-live")
        seen = stream.wait(made, "ACTIVE")
    finally:
        stream.close()
    assert seen[0].status == "BUILD" and seen[-1].status == "ACTIVE", seen
    page = demo.get("/project/instances")
    assert made in demo.row_ids() and "dash-image" in page.text and "dash.tiny" in page.text


def test_the_instance_page_shows_its_console_log_and_its_action_history(
    cloud: Cloud, world: World, demo: Visitor
) -> None:
    made = _launched(cloud, demo, world, "dash-detail")
    _wait_status(cloud, made, "ACTIVE")
    page = demo.get(f"/project/instances/{made}")
    assert page.status_code == 200
    assert "[fake] boot" in page.text  # the fake driver's console
    assert "create" in page.text and "compute_build_and_run_instance: Success" in page.text
    offered = set(re.findall(r'value="(stop|start|reboot)"', page.text))
    assert offered == {"stop", "reboot"}  # an ACTIVE server cannot be started
    stopped = demo.post(f"/project/instances/{made}/action", {"action": "stop"})
    assert stopped.status_code == 303
    _wait_status(cloud, made, "SHUTOFF")
    page = demo.get(f"/project/instances/{made}")
    assert set(re.findall(r'value="(stop|start|reboot)"', page.text)) == {"start"}
    again = demo.post(f"/project/instances/{made}/action", {"action": "reboot"})
    assert again.status_code == 409 and "Cannot reboot" in again.text  # the API's words
    assert "Traceback" not in again.text


def test_start_reboot_and_a_confirmed_rebuild(cloud: Cloud, world: World, demo: Visitor) -> None:
    made = _launched(cloud, demo, world, "dash-cycle")
    _wait_status(cloud, made, "ACTIVE")
    for action, status in (("stop", "SHUTOFF"), ("start", "ACTIVE"), ("reboot", "ACTIVE")):
        demo.get(f"/project/instances/{made}")
        assert demo.post(f"/project/instances/{made}/action", {"action": action}).status_code == 303
        _wait_status(cloud, made, status)
    demo.get(f"/project/instances/{made}")
    asked = demo.post(f"/project/instances/{made}/action", {"action": "rebuild"})
    confirm = demo.get(asked.headers["Location"])
    assert "replaces the root disk" in confirm.text
    done = demo.post(f"/project/instances/{made}/action",
                     {"action": "rebuild", "confirmed": "yes"})  # fmt: skip
    assert done.status_code == 303
    _wait_status(cloud, made, "ACTIVE")
    history = demo.get(f"/project/instances/{made}").text
    for action in ("create", "stop", "start", "reboot", "rebuild"):
        assert f"<td>{action}" in history, action


def test_a_launch_with_a_network_a_key_pair_and_user_data(
    cloud: Cloud, world: World, demo: Visitor
) -> None:
    """All reach the API; the build then fails on this cloud (no L2 agent binds the
    port), and the page shows the fault's message."""
    page = demo.get("/project/instances/launch")
    assert ">dash-net<" in page.text and ">dash-key<" in page.text
    before = _server_ids(cloud)
    form = {"name": "dash-wired", "image": world.image_id, "flavor": world.flavor_id,
            "network": world.network_id, "security_groups": "default",
            "key_name": "dash-key", "user_data": "#!/bin/sh\necho hello\n"}  # fmt: skip
    assert demo.post("/project/instances/launch", form).status_code == 303
    (made,) = _server_ids(cloud) - before
    _wait_status(cloud, made, "ERROR")
    server = sdk(cloud.clouds_yaml, "admin").compute.get_server(made)
    assert server.key_name == "dash-key"
    assert base64.b64decode(server.user_data) == b"#!/bin/sh\necho hello\n"
    shown = demo.get(f"/project/instances/{made}")
    fault = re.search(r'<dd class="error">([^<]*)</dd>', shown.text)
    assert fault and "failed on every host tried" in fault[1], fault  # the API's words


def test_no_valid_host_is_shown_with_its_reasons(cloud: Cloud, world: World, demo: Visitor) -> None:
    before = _server_ids(cloud)
    demo.get("/project/instances/launch")
    incomplete = demo.post("/project/instances/launch", {"name": "dash-half"})
    assert incomplete.status_code == 400 and "Choose an image, a flavor." in incomplete.text
    assert demo.launch(world, "dash-big", world.big_flavor_id).status_code == 303
    (made,) = _server_ids(cloud) - before
    _wait_status(cloud, made, "ERROR")
    page = demo.get("/project/instances")
    row = page.text[page.text.index(f'id="server-{made}"') :].split("</tr>")[0]
    assert "No valid host was found" in row and "MEMORY_MB" in row


def test_delete_asks_first_then_the_stream_reports_the_row_gone(
    cloud: Cloud, world: World, demo: Visitor
) -> None:
    made = _launched(cloud, demo, world, "dash-delete")
    _wait_status(cloud, made, "ACTIVE")
    demo.get("/project/instances")
    asked = demo.post(f"/project/instances/{made}/action", {"action": "delete"})
    assert asked.status_code == 303
    confirm = demo.get(asked.headers["Location"])
    assert "removes the instance and its ephemeral storage" in confirm.text
    assert made in _server_ids(cloud)  # nothing deleted without the confirmation
    stream = Stream(demo)
    try:
        done = demo.post(f"/project/instances/{made}/action",
                         {"action": "delete", "confirmed": "yes"})  # fmt: skip
        assert done.status_code == 303
        stream.wait(made, "DELETED")
    finally:
        stream.close()
    assert made not in demo.row_ids()


def test_another_users_session_cannot_see_or_act_on_demos_servers(
    cloud: Cloud, world: World, demo: Visitor
) -> None:
    made = _launched(cloud, demo, world, "dash-private")
    _wait_status(cloud, made, "ACTIVE")
    other = Visitor(world.base)
    assert other.login(world.other_user, world.other_password).status_code == 303
    assert made not in other.row_ids()
    shown = other.get(f"/project/instances/{made}")
    unknown = other.get("/project/instances/00000000-0000-4000-8000-000000000000")
    assert shown.status_code == unknown.status_code == 404
    assert NOT_HERE in shown.text and "dash-private" not in shown.text
    other.get("/project/instances")
    acted = other.post(f"/project/instances/{made}/action", {"action": "stop"})
    assert acted.status_code == 404
    demo.get("/project/instances")
    crossed = other.post(f"/project/instances/{made}/action", {"action": "stop"},
                         token=demo.token())  # fmt: skip
    assert crossed.status_code == 403  # demo's token is no good in another session
    _wait_status(cloud, made, "ACTIVE")


def test_the_project_switcher_rescopes_to_the_other_project(
    cloud: Cloud, world: World, demo: Visitor
) -> None:
    mine = demo.row_ids()
    assert mine
    demo.get("/project/instances")
    switched = demo.post("/auth/switch", {"project_id": world.second_project})
    assert switched.status_code == 303
    assert demo.row_ids() == []  # dash-two has no servers
    assert "selected>dash-two</option>" in demo.get("/project/instances").text


def test_logout_revokes_the_tokens_and_ends_the_session(
    cloud: Cloud, world: World, demo: Visitor
) -> None:
    demo.get("/project/instances")
    before = revocations(cloud)
    assert demo.post("/auth/logout", {}).status_code == 303
    assert revocations(cloud) == before + 2  # the project token and the unscoped one
    assert demo.get("/project/instances").status_code == 303  # to the login form
    gone = demo.post("/auth/switch", {"project_id": world.second_project}, token="x")
    assert gone.status_code == 403
