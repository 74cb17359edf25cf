"""The dashboard's Networks and Security groups pages against a real `saphira up`
(fake driver), through HTTP as a browser sends it: a network with its first subnet
in one form (a provider network for an administrator), subnets added and deleted,
a network with a port in use refused in plain words, the default group shown as
Neutron makes it, an SSH rule open to 0.0.0.0/0 warned of before and after, and
another project seeing none of it. One test in Debian's headless Chromium: the
Add Rule form's own warning while the SSH rule is chosen for the default group,
then the server's, with a screenshot of each page under the test's tmp dir."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.browser import chrome
from tests.functional.clients import sdk
from tests.functional.cloud import Cloud
from tests.functional.dashboard.pages import Pages
from tests.functional.dashboard.world import Visitor, World

pytestmark = pytest.mark.functional
NETS, GROUPS = "/project/networks", "/project/security_groups"
OPEN = "Open to the whole internet"


def _admin(cloud: Cloud, world: World) -> Visitor:
    password = yaml.safe_load(cloud.clouds_yaml.read_text())["clouds"]["admin"]["auth"]["password"]
    visitor = Visitor(world.base)
    assert visitor.login("admin", password).status_code == 303
    return visitor


def _create(visitor: Visitor, **form: str) -> str:
    """A network made through the form; its id, from where the form sends the browser."""
    visitor.get(f"{NETS}/create")
    made = visitor.post(f"{NETS}/create", {"dhcp": "on", **form})
    assert made.status_code == 303, made.text
    return str(made.headers["Location"]).rsplit("/", 1)[1]


def test_a_member_makes_a_network_with_its_first_subnet_then_adds_and_deletes_one(
    cloud: Cloud, demo: Visitor
) -> None:
    form = demo.get(f"{NETS}/create")
    assert 'id="cidr"' in form.text and "network_type" not in form.text  # no provider fields
    made = _create(demo, name="dn-net", subnet_name="dn-sub", cidr="10.30.0.0/24",
                   pools="10.30.0.10,10.30.0.50", dns="192.0.2.53")  # fmt: skip
    (subnet,) = sdk(cloud.clouds_yaml, "demo").network.subnets(network_id=made)
    assert subnet.is_dhcp_enabled and subnet.gateway_ip == "10.30.0.1"
    assert subnet.allocation_pools == [{"start": "10.30.0.10", "end": "10.30.0.50"}]
    assert subnet.dns_nameservers == ["192.0.2.53"]
    page = demo.get(f"{NETS}/{made}")
    assert "10.30.0.10-10.30.0.50" in page.text and "Enabled" in page.text
    assert "physnet" not in page.text  # provider attributes are an administrator's
    listing = demo.get(NETS).text
    row = listing[listing.index(f'id="network-{made}"') :].split("</tr>")[0]
    assert "dn-net" in row and "10.30.0.0/24" in row and "Physical network" not in listing
    conflict = demo.post(f"{NETS}/create", {"name": "dn-undone", "cidr": "10.60.0.0/24",
                                             "pools": "10.60.0.1,10.60.0.9"})  # fmt: skip
    assert conflict.status_code == 409 and "conflicts with allocation pool" in conflict.text
    assert 'value="dn-undone"' in conflict.text  # the form again, as it was filled in
    assert sdk(cloud.clouds_yaml, "demo").network.find_network("dn-undone") is None  # undone

    demo.get(f"{NETS}/{made}/subnets/add")
    added = demo.post(f"{NETS}/{made}/subnets/add", {"cidr": "10.31.0.0/24", "no_gateway": "on"})
    assert added.status_code == 303
    (second,) = [s for s in sdk(cloud.clouds_yaml, "demo").network.subnets(network_id=made)
                 if s.cidr == "10.31.0.0/24"]  # fmt: skip
    assert not second.is_dhcp_enabled and second.gateway_ip is None
    overlap = demo.post(f"{NETS}/{made}/subnets/add", {"cidr": "10.31.0.0/25", "dhcp": "on"})
    assert overlap.status_code == 400 and "overlaps" in overlap.text  # the API's words
    ask = demo.get(f"{NETS}/{made}/subnets/{second.id}/delete")
    assert "Delete subnet" in ask.text and "10.31.0.0/24" in ask.text
    assert demo.post(f"{NETS}/{made}/subnets/{second.id}/delete", {}).status_code == 303
    assert [s.cidr for s in sdk(cloud.clouds_yaml, "demo").network.subnets(network_id=made)] == [
        "10.30.0.0/24"
    ]


def test_an_admin_makes_a_shared_flat_network_on_physnet1_members_see_it_but_not_its_mapping(
    cloud: Cloud, world: World, demo: Visitor
) -> None:
    admin = _admin(cloud, world)
    assert 'name="network_type"' in admin.get(f"{NETS}/create").text
    made = _create(admin, name="dn-provider", network_type="flat", physical_network="physnet1",
                   shared="on", cidr="203.0.113.0/24")  # fmt: skip
    found = sdk(cloud.clouds_yaml, "admin").network.get_network(made)
    assert (found.provider_network_type, found.provider_physical_network) == ("flat", "physnet1")
    assert found.is_shared
    page = admin.get(f"{NETS}/{made}").text
    assert re.search(r'id="provider-type">flat<', page) and re.search(
        r'id="physnet">physnet1<', page
    )
    listing = demo.get(NETS).text
    row = listing[listing.index(f'id="network-{made}"') :].split("</tr>")[0]
    assert "dn-provider" in row and "203.0.113.0/24" in row and "Yes" in row  # shared
    assert "physnet1" not in row and "/delete" not in row  # not demo's to delete
    assert demo.post(f"{NETS}/{made}/delete", {}, token="").status_code == 403
    demo.get(f"{NETS}/{made}")
    assert demo.post(f"{NETS}/{made}/delete", {}).status_code == 404
    admin.get(f"{NETS}/create")
    wrong = admin.post(f"{NETS}/create", {"name": "dn-bad", "network_type": "flat"})
    assert wrong.status_code == 400 and "needs its physical network" in wrong.text
    taken = admin.post(f"{NETS}/create", {"name": "dn-second", "network_type": "flat",
                                          "physical_network": "physnet1"})  # fmt: skip
    assert taken.status_code == 409 and "Physical network physnet1 is in use." in taken.text


def test_a_network_with_a_port_in_use_is_kept_and_the_page_says_why(
    cloud: Cloud, demo: Visitor
) -> None:
    made = _create(demo, name="dn-busy", cidr="10.40.0.0/24")
    conn = sdk(cloud.clouds_yaml, "demo")
    port = conn.network.create_port(network_id=made, name="dn-port")
    ask = demo.get(f"{NETS}/{made}/delete")
    assert "1 port(s) still use it" in ask.text and "dn-port" not in ask.text
    refused = demo.post(f"{NETS}/{made}/delete", {})
    assert refused.status_code == 409 and "ports still in use on the network" in refused.text
    assert "Traceback" not in refused.text and 'id="confirm"' in refused.text
    assert conn.network.find_network(made) is not None
    conn.network.delete_port(port)
    demo.get(f"{NETS}/{made}/delete")
    assert demo.post(f"{NETS}/{made}/delete", {}).status_code == 303
    assert conn.network.find_network(made) is None


def _default_group(cloud: Cloud) -> str:
    conn = sdk(cloud.clouds_yaml, "demo")
    project = conn.current_project_id
    (group,) = conn.network.security_groups(project_id=project, name="default")
    return str(group.id)


def _rule_count(cloud: Cloud, group: str) -> int:
    return len(list(sdk(cloud.clouds_yaml, "demo").network.security_group_rules(
        security_group_id=group)))  # fmt: skip


def test_the_ssh_rule_open_to_everyone_is_warned_of_before_and_after_it_is_added(
    cloud: Cloud, demo: Visitor
) -> None:
    group = _default_group(cloud)
    page = demo.get(f"{GROUPS}/{group}").text
    assert page.count('<tr id="rule-') == 4 and OPEN not in page  # Neutron's default group
    assert "group default" in page and "0.0.0.0/0" in page and "::/0" in page
    assert f"{GROUPS}/{group}/delete" not in page  # the default group stays
    demo.get(f"{GROUPS}/{group}/rules/add")
    ssh = {"preset": "ssh", "direction": "ingress", "remote": "cidr", "cidr": "0.0.0.0/0"}
    asked = demo.post(f"{GROUPS}/{group}/rules/add", ssh)
    assert asked.status_code == 200 and 'id="exposure"' in asked.text
    assert f"{OPEN} (0.0.0.0/0): SSH (TCP port 22)" in asked.text
    assert _rule_count(cloud, group) == 4  # not added before it is confirmed
    added = demo.post(f"{GROUPS}/{group}/rules/add", {**ssh, "confirmed": "yes"})
    assert added.status_code == 303 and "?added=" in added.headers["Location"]
    after = demo.get(added.headers["Location"]).text
    assert 'id="added-warning"' in after and after.count(OPEN) == 2  # the banner and the row
    assert OPEN in demo.get(GROUPS).text
    rule = added.headers["Location"].split("?added=")[1]
    ask = demo.get(f"{GROUPS}/{group}/rules/{rule}/delete")
    assert "ingress IPv4 tcp 22, 0.0.0.0/0" in ask.text
    assert demo.post(f"{GROUPS}/{group}/rules/{rule}/delete", {}).status_code == 303
    assert _rule_count(cloud, group) == 4


def test_groups_are_made_given_rules_limited_to_some_addresses_and_deleted(
    cloud: Cloud, demo: Visitor
) -> None:
    demo.get(GROUPS)
    made = demo.post(GROUPS, {"name": "dn-web", "description": "web servers"})
    assert made.status_code == 303
    group = str(made.headers["Location"]).rsplit("/", 1)[1]
    demo.get(f"{GROUPS}/{group}/rules/add")
    http = {"preset": "http", "direction": "ingress", "remote": "cidr", "cidr": "192.0.2.0/24"}
    assert demo.post(f"{GROUPS}/{group}/rules/add", http).status_code == 303  # no warning step
    peers = {"preset": "custom_tcp", "ports": "8000-8080", "remote": "group",
             "group": _default_group(cloud), "ethertype": "IPv4"}  # fmt: skip
    assert demo.post(f"{GROUPS}/{group}/rules/add", peers).status_code == 303
    gre = {"preset": "other", "protocol": "gre", "remote": "cidr", "cidr": "198.51.100.0/24"}
    assert demo.post(f"{GROUPS}/{group}/rules/add", gre).status_code == 303
    again = demo.post(f"{GROUPS}/{group}/rules/add", http)
    assert again.status_code == 409 and "already exists" in again.text  # the API's words
    page = demo.get(f"{GROUPS}/{group}").text
    assert "192.0.2.0/24" in page and "8000-8080" in page and "group default" in page
    assert "<td>gre</td>" in page and OPEN not in page
    assert "removes its 5 rule(s)" in demo.get(f"{GROUPS}/{group}/delete").text
    assert demo.post(f"{GROUPS}/{group}/delete", {}).status_code == 303
    assert "dn-web" not in demo.get(GROUPS).text


def test_another_project_sees_none_of_it(cloud: Cloud, world: World, demo: Visitor) -> None:
    made = _create(demo, name="dn-private", cidr="10.50.0.0/24")
    group = _default_group(cloud)
    other = Visitor(world.base)
    assert other.login(world.other_user, world.other_password).status_code == 303
    assert "dn-private" not in other.get(NETS).text
    for path in (f"{NETS}/{made}", f"{NETS}/{made}/delete", f"{GROUPS}/{group}",
                 f"{GROUPS}/{group}/rules/add"):  # fmt: skip
        seen = other.get(path)
        assert seen.status_code == 404 and "Not found in this project." in seen.text, path
    other.get(NETS)
    assert other.post(f"{NETS}/{made}/delete", {}).status_code == 404
    assert sdk(cloud.clouds_yaml, "demo").network.find_network(made) is not None


def test_in_the_browser_the_ssh_rule_for_the_default_group_shows_the_open_warning(
    cloud: Cloud, world: World, tmp_path: Path
) -> None:
    group = _default_group(cloud)
    with chrome() as browser:
        pages = Pages(browser, world.base, tmp_path)
        driver = pages.driver
        pages.log_in("demo", world.demo_password)
        pages.follow("Network", "Security groups", "groups")
        pages.find(By.LINK_TEXT, "default").click()
        assert OPEN not in pages.shown("rules").text
        pages.shot("default-group")
        driver.find_element(By.ID, "add-rule").click()
        note, ports = pages.shown("open-note"), driver.find_element(By.ID, "ports")
        pages.until("the form's warning for SSH from 0.0.0.0/0", note.is_displayed)
        assert f"{OPEN} (0.0.0.0/0): SSH (TCP port 22)" in note.text and not ports.is_displayed()
        pages.shot("rule-form")
        cidr = driver.find_element(By.ID, "cidr")
        cidr.clear()
        cidr.send_keys("192.0.2.0/24")
        pages.until("no warning for 192.0.2.0/24", lambda: not note.is_displayed())
        Select(driver.find_element(By.ID, "preset")).select_by_value("custom_tcp")
        pages.until("the port field of a custom TCP rule", ports.is_displayed)
        Select(driver.find_element(By.ID, "preset")).select_by_value("ssh")
        cidr.clear()
        cidr.send_keys("0.0.0.0/0")
        pages.until("the warning again", note.is_displayed)
        driver.find_element(By.ID, "submit").click()
        assert "SSH (TCP port 22)" in pages.shown("exposure").text
        pages.shot("asked-again")
        driver.find_element(By.ID, "submit").click()
        added = pages.shown("added-warning").text
        assert f"{OPEN} (0.0.0.0/0): SSH (TCP port 22)" in added
        assert len(driver.find_elements(By.CSS_SELECTOR, "#rules tr.exposed")) == 1
        pages.shot("added")
    assert len(list(tmp_path.glob("*.png"))) == pages.taken == 4
    conn = sdk(cloud.clouds_yaml, "demo")
    (rule,) = [r for r in conn.network.security_group_rules(security_group_id=group)
               if r.port_range_min == 22]  # fmt: skip
    conn.network.delete_security_group_rule(rule)  # the default group as it was
