"""The compute views' bodies fit the answers the document describes for them, at the
oldest microversion, the newest and those between where a body changes (the fuzzer
checks the real answers the same way against a running cloud)."""

from __future__ import annotations

import datetime as dt
from typing import Any, cast

import pytest
from jsonschema import Draft202012Validator
from sqlalchemy.orm import Session
from werkzeug.test import EnvironBuilder

from saphira.api.auth import CONTEXT_KEY
from saphira.api.compute import (
    flavors,
    hypervisors,
    instance_actions,
    migrations,
    quota_classes,
    quotas,
    server_groups,
    server_interfaces,
    versions,
)
from saphira.api.compute.addresses import by_network
from saphira.api.compute.app import Call
from saphira.api.compute.microversion import MAX, Version
from saphira.api.compute.security_group_views import group_view
from saphira.api.compute.state import ComputeState
from saphira.api.openapi.model import JSON
from saphira.api.openapi.specs import FIXED
from saphira.api.wsgi.app import Request
from saphira.computesvc.action_log import ActionRecord, EventRecord
from saphira.computesvc.hosts import ComputeNode, Node
from saphira.computesvc.migrations import MigrationRecord
from saphira.computesvc.server_groups import InstanceGroup
from saphira.context import RequestContext
from saphira.db.api.cells import Cell
from saphira.db.api.models import Flavor, FlavorExtraSpec
from saphira.objects import InstanceVIF

# Where the bodies below change: tags 2.26, uuids 2.53, 2.58's actions, 2.64's groups...
VERSIONS = ("2.1", "2.23", "2.36", "2.51", "2.53", "2.58", "2.64", "2.80", str(MAX))
T0 = dt.datetime(2026, 3, 1, 12, 0, 5)
SERVER = "0b6b5c1e-1111-2222-3333-444455556666"
PORT = "3f0c9a51-aaaa-bbbb-cccc-000000000001"


def _call(version: str, admin: bool = True) -> Call:
    environ = EnvironBuilder(path="/v2.1/servers", base_url="http://cloud:8774").get_environ()
    roles = ("admin", "member", "reader") if admin else ("member", "reader")
    environ[CONTEXT_KEY] = RequestContext(user_id="u1", project_id="p1", roles=roles)
    return Call(Request(environ), Version.parse(version), cast(ComputeState, None),
                cast(Session, None))  # fmt: skip


def fits(body: Any, method: str, rule: str, status: str = "200") -> None:
    answers = FIXED["compute"].responses[(method, rule)]
    schema = answers[status]["content"][JSON]["schema"]
    errors = [e.message for e in Draft202012Validator(schema).iter_errors(body)]
    assert not errors, f"{method} {rule} {status}: {errors}"


def test_the_version_documents_fit() -> None:
    request = Request(EnvironBuilder(path="/", base_url="http://cloud:8774").get_environ())
    fits(versions.list_versions(request).json, "GET", "/")
    fits(versions.show_v21(request).json, "GET", "/v2.1")
    fits(versions.show_v20(request).json, "GET", "/v2")


@pytest.mark.parametrize("version", VERSIONS)
def test_a_flavor_fits(version: str) -> None:
    specs = [FlavorExtraSpec(key="hw:cpu_policy", value="shared")]
    flavor = Flavor(flavorid="2", name="m1.small", memory_mb=2048, vcpus=1, root_gb=20,
                    ephemeral_gb=0, swap=0, rxtx_factor=1.0, disabled=False, is_public=True,
                    description=None, extra_specs=specs)  # fmt: skip
    body = {"flavor": flavors.detail(_call(version), flavor, specs=True)}
    for method, rule in (("GET", "/v2.1/flavors/<flavor_id>"), ("POST", "/v2.1/flavors")):
        fits(body, method, rule)


@pytest.mark.parametrize("version", VERSIONS)
def test_a_server_group_fits(version: str) -> None:
    group = InstanceGroup(1, "9c4e0f6e-0000-4000-8000-000000000001", None, "p1", "u1",
                          "affinity", {}, (SERVER,))  # fmt: skip
    body = {"server_group": server_groups.view(_call(version), group)}
    fits(body, "POST", "/v2.1/os-server-groups")


@pytest.mark.parametrize("version", VERSIONS)
def test_a_migration_fits(version: str) -> None:
    found = MigrationRecord(3, "5d1c0e6e-0000-4000-8000-000000000003", SERVER, "host1", None,
                            "node1", None, "2", None, "resize", "pre-migrating", None, None,
                            T0, None)  # fmt: skip
    body = {"migrations": [migrations._view(_call(version), found, {"2": 5})]}
    fits(body, "GET", "/v2.1/os-migrations")


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("admin", [True, False])
def test_an_instance_action_fits(version: str, admin: bool) -> None:
    call = _call(version, admin)
    action = ActionRecord(1, "reboot", SERVER, "req-1", "u1", "p1", T0, None, None)
    event = EventRecord("compute_reboot_instance", T0, None, None, None, None, None)
    shown = instance_actions._action(call, action)
    fits({"instanceActions": [shown]}, "GET", "/v2.1/servers/<server_id>/os-instance-actions")
    shown["events"] = [instance_actions._event(call, event, admin, "p1")]
    rule = "/v2.1/servers/<server_id>/os-instance-actions/<request_id>"
    fits({"instanceAction": shown}, "GET", rule)


@pytest.mark.parametrize("version", VERSIONS)
def test_an_interface_and_the_addresses_fit(version: str) -> None:
    vif = InstanceVIF(PORT, "fa:16:3e:00:00:01", "net-1", "private", ["10.0.0.5", "fd00::5"],
                      "ovs", "br-int", 1450, True)  # fmt: skip
    port = {"id": PORT, "network_id": "net-1", "mac_address": "fa:16:3e:00:00:01",
            "status": "ACTIVE", "device_id": SERVER,
            "fixed_ips": [{"subnet_id": "sub-1", "ip_address": "10.0.0.5"}]}  # fmt: skip
    shown = server_interfaces._view(_call(version), port, [vif])
    fits({"interfaceAttachments": [shown]}, "GET", "/v2.1/servers/<server_id>/os-interface")
    fits({"interfaceAttachment": shown}, "POST", "/v2.1/servers/<server_id>/os-interface")
    addresses = by_network(_fake_instance(vif), extended=False)
    fits({"addresses": addresses}, "GET", "/v2.1/servers/<server_id>/ips")
    fits({"private": addresses["private"]}, "GET", "/v2.1/servers/<server_id>/ips/<network>")


@pytest.mark.parametrize("version", [*VERSIONS, "2.88"])
def test_a_hypervisor_fits(version: str) -> None:
    """One whose service is gone (the node still listed, as the store lists it)."""
    row = ComputeNode(id=4, uuid="7a1c0e6e-0000-4000-8000-000000000004", service_id=None,
                      host="host1", hypervisor_hostname="host1.example", hypervisor_type="QEMU",
                      hypervisor_version=8002000, host_ip=None, vcpus=4, memory_mb=8192,
                      local_gb=40, vcpus_used=1, memory_mb_used=512, local_gb_used=1,
                      cpu_info='{"arch": "x86_64"}')  # fmt: skip
    node = Node(cast(Cell, None), row, None, running_vms=1)
    call = _call(version)
    rule = "/v2.1/os-hypervisors"
    fits({"hypervisors": [hypervisors._brief(call, node)]}, "GET", rule)
    fits({"hypervisors": [hypervisors._brief(call, node)]}, "GET", f"{rule}/<pattern>/search")
    fits({"hypervisors": [hypervisors._detail(call, node, {})]}, "GET", f"{rule}/detail")
    fits({"hypervisor": hypervisors._detail(call, node, {})}, "GET", f"{rule}/<hypervisor_id>")


def _fake_instance(vif: InstanceVIF) -> Any:
    class Holder:
        network_info = [vif]

    return Holder()


def test_a_security_group_fits() -> None:
    other = {"name": "web", "tenant_id": "p2"}
    rules = [
        {"id": "r1", "security_group_id": "g1", "direction": "ingress", "protocol": "tcp",
         "port_range_min": None, "port_range_max": None, "remote_ip_prefix": None},
        {"id": "r2", "security_group_id": "g1", "direction": "ingress", "protocol": None,
         "remote_group_id": "g2"},
        {"id": "r3", "security_group_id": "g1", "direction": "egress", "protocol": None},
    ]  # fmt: skip
    group = {"id": "g1", "name": "default", "description": None, "project_id": "p1",
             "security_group_rules": rules}  # fmt: skip
    body = {"security_group": group_view(group, {"g2": other})}
    fits(body, "GET", "/v2.1/os-security-groups/<group_id>")
    fits({"security_groups": [body["security_group"]]}, "GET",
         "/v2.1/servers/<server_id>/os-security-groups")  # fmt: skip


@pytest.mark.parametrize("version", VERSIONS)
def test_the_quota_sets_show_every_required_resource(version: str) -> None:
    """Every resource the handlers show is an integer limit (the figures are the store's)."""
    call = _call(version)
    limits = {name: 10 for name in quotas.shown(call)}
    fits({"quota_set": {"id": "p1", **limits}}, "GET", "/v2.1/os-quota-sets/<tenant_id>")
    fits({"quota_set": limits}, "PUT", "/v2.1/os-quota-sets/<tenant_id>")
    usage = {name: {"limit": 10, "in_use": 1, "reserved": 0} for name in quotas.shown(call)}
    fits({"quota_set": {"id": "p1", **usage}}, "GET", "/v2.1/os-quota-sets/<tenant_id>/detail")
    classes = {name: 10 for name in quota_classes.shown(call)}
    rule = "/v2.1/os-quota-class-sets/<class_name>"
    fits({"quota_class_set": {"id": "default", **classes}}, "GET", rule)
    fits({"quota_class_set": classes}, "PUT", rule)
