"""A listed server's body, pinned: every optional part at the newest microversion
with every right, and the oldest with none, as the views wrote them before the
listing's per-request memos (links, images, gates)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, cast

import pytest
from sqlalchemy.orm import Session
from werkzeug.test import EnvironBuilder

from saphira.api.auth import CONTEXT_KEY
from saphira.api.compute import server_views as views
from saphira.api.compute.app import Call
from saphira.api.compute.microversion import Version
from saphira.api.compute.state import ComputeState
from saphira.api.wsgi.app import Request
from saphira.context import RequestContext
from saphira.domain.states import PowerState, TaskState, VmState
from saphira.objects import Flavor, Instance, InstanceFault, InstanceVIF

UUID = "0b6b5c1e-1111-2222-3333-444455556666"
T0 = dt.datetime(2026, 3, 1, 12, 0, 5, 123456)
VIF = InstanceVIF("3f0c9a51-aaaa-bbbb-cccc-000000000001", "fa:16:3e:00:00:01", "net-1",
                  "private", ["10.0.0.5", "fd00::5"], "ovs", "br-int", 1450, True)  # fmt: skip


def _call(version: str, admin: bool) -> Call:
    environ = EnvironBuilder(
        path="/v2.1/p1/servers/detail", base_url="http://cloud:8774"
    ).get_environ()
    roles = ("admin", "member", "reader") if admin else ("member", "reader")
    environ[CONTEXT_KEY] = RequestContext(user_id="u1", project_id="p1", roles=roles)
    return Call(Request(environ), Version.parse(version), cast(ComputeState, None),
                cast(Session, None), url_project_id="p1")  # fmt: skip


def _shown(state: VmState) -> views.Shown:
    flavor = Flavor("2", "m1.small", 1, 2048, 20, ephemeral_gb=1, swap=512,
                    extra_specs={"hw:cpu_policy": "shared"})  # fmt: skip
    instance = Instance(
        UUID, "p1", "u1", flavor, display_name="web", display_description="front",
        hostname="web", image_ref="155d900f-4e14-4e4c-a73d-069cbf4541e6", host="host1",
        node="host1.example", vm_state=state, task_state=TaskState.REBOOTING,
        power_state=PowerState.RUNNING, launched_at=T0, terminated_at=None, created_at=T0,
        updated_at=T0 + dt.timedelta(minutes=1), metadata={"role": "web"},
        system_metadata={"locked_reason": "audit"}, tags=["a", "b"], key_name="key",
        user_data="dXNlcg==", availability_zone="nova", locked=True, locked_by="admin",
        access_ip_v4="192.0.2.1", access_ip_v6="2001:db8::1", config_drive="True",
        launch_index=1, reservation_id="r-1", progress=40, network_info=[VIF], id=7,
    )  # fmt: skip
    fault = InstanceFault(UUID, 500, "boom", "trace", "host1", T0)
    return views.Shown(instance, fault, "UP", ("g1",), "nova", {"group": ["g1"], "a": ["1", "2"]},
                       [{"name": "default"}])  # fmt: skip


def body_of(version: str, rights: bool, state: VmState = VmState.ERROR) -> dict[str, Any]:
    call = _call(version, admin=rights)
    granted = views.Rights(rights, rights, rights, views.Gates.of(call))
    return views.detail(call, _shown(state), granted, listing=True)


CASES = {
    ('2.100', True, VmState.ERROR): {'id': '0b6b5c1e-1111-2222-3333-444455556666',
     'name': 'web',
     'status': 'ERROR',
     'tenant_id': 'p1',
     'user_id': 'u1',
     'metadata': {'role': 'web'},
     'hostId': '4a619b6f283c9bde622de1daf53a68c016813525d84227419b69d671',
     'image': {'id': '155d900f-4e14-4e4c-a73d-069cbf4541e6',
               'links': [{'rel': 'bookmark',
                          'href': 'http://cloud:8774/p1/images/155d900f-4e14-4e4c-a73d-069cbf4541e6'}]},
     'flavor': {'vcpus': 1,
                'ram': 2048,
                'disk': 20,
                'ephemeral': 1,
                'swap': 512,
                'original_name': 'm1.small',
                'extra_specs': {'hw:cpu_policy': 'shared'}},
     'created': '2026-03-01T12:00:05Z',
     'updated': '2026-03-01T12:01:05Z',
     'addresses': {'private': [{'version': 4,
                                'addr': '10.0.0.5',
                                'OS-EXT-IPS:type': 'fixed',
                                'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:00:00:01'},
                               {'version': 6,
                                'addr': 'fd00::5',
                                'OS-EXT-IPS:type': 'fixed',
                                'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:00:00:01'}]},
     'accessIPv4': '192.0.2.1',
     'accessIPv6': '2001:db8::1',
     'links': [{'rel': 'self',
                'href': 'http://cloud:8774/v2.1/p1/servers/0b6b5c1e-1111-2222-3333-444455556666'},
               {'rel': 'bookmark',
                'href': 'http://cloud:8774/p1/servers/0b6b5c1e-1111-2222-3333-444455556666'}],
     'OS-DCF:diskConfig': 'MANUAL',
     'fault': {'code': 500,
               'created': '2026-03-01T12:00:05Z',
               'message': 'boom',
               'details': 'trace'},
     'locked': True,
     'description': 'front',
     'tags': ['a', 'b'],
     'trusted_image_certificates': None,
     'locked_reason': 'audit',
     'key_name': 'key',
     'OS-SRV-USG:launched_at': '2026-03-01T12:00:05.123456',
     'OS-SRV-USG:terminated_at': None,
     'OS-EXT-AZ:availability_zone': 'nova',
     'OS-EXT-STS:task_state': 'rebooting',
     'OS-EXT-STS:vm_state': 'error',
     'OS-EXT-STS:power_state': 1,
     'os-extended-volumes:volumes_attached': [],
     'config_drive': 'True',
     'security_groups': [{'name': 'default'}],
     'OS-EXT-SRV-ATTR:host': 'host1',
     'OS-EXT-SRV-ATTR:instance_name': 'instance-0b6b5c1e-1111-2222-3333-444455556666',
     'OS-EXT-SRV-ATTR:hypervisor_hostname': 'host1.example',
     'OS-EXT-SRV-ATTR:reservation_id': 'r-1',
     'OS-EXT-SRV-ATTR:launch_index': 1,
     'OS-EXT-SRV-ATTR:kernel_id': '',
     'OS-EXT-SRV-ATTR:ramdisk_id': '',
     'OS-EXT-SRV-ATTR:hostname': 'web',
     'OS-EXT-SRV-ATTR:root_device_name': None,
     'OS-EXT-SRV-ATTR:user_data': 'dXNlcg==',
     'host_status': 'UP',
     'pinned_availability_zone': 'nova',
     'scheduler_hints': {'group': 'g1', 'a': ['1', '2']}},
    ('2.1', False, VmState.ERROR): {'id': '0b6b5c1e-1111-2222-3333-444455556666',
     'name': 'web',
     'status': 'ERROR',
     'tenant_id': 'p1',
     'user_id': 'u1',
     'metadata': {'role': 'web'},
     'hostId': '4a619b6f283c9bde622de1daf53a68c016813525d84227419b69d671',
     'image': {'id': '155d900f-4e14-4e4c-a73d-069cbf4541e6',
               'links': [{'rel': 'bookmark',
                          'href': 'http://cloud:8774/p1/images/155d900f-4e14-4e4c-a73d-069cbf4541e6'}]},
     'flavor': {'id': '2',
                'links': [{'rel': 'bookmark', 'href': 'http://cloud:8774/p1/flavors/2'}]},
     'created': '2026-03-01T12:00:05Z',
     'updated': '2026-03-01T12:01:05Z',
     'addresses': {'private': [{'version': 4,
                                'addr': '10.0.0.5',
                                'OS-EXT-IPS:type': 'fixed',
                                'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:00:00:01'},
                               {'version': 6,
                                'addr': 'fd00::5',
                                'OS-EXT-IPS:type': 'fixed',
                                'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:00:00:01'}]},
     'accessIPv4': '192.0.2.1',
     'accessIPv6': '2001:db8::1',
     'links': [{'rel': 'self',
                'href': 'http://cloud:8774/v2.1/p1/servers/0b6b5c1e-1111-2222-3333-444455556666'},
               {'rel': 'bookmark',
                'href': 'http://cloud:8774/p1/servers/0b6b5c1e-1111-2222-3333-444455556666'}],
     'OS-DCF:diskConfig': 'MANUAL',
     'fault': {'code': 500, 'created': '2026-03-01T12:00:05Z', 'message': 'boom'},
     'key_name': 'key',
     'OS-SRV-USG:launched_at': '2026-03-01T12:00:05.123456',
     'OS-SRV-USG:terminated_at': None,
     'OS-EXT-AZ:availability_zone': 'nova',
     'OS-EXT-STS:task_state': 'rebooting',
     'OS-EXT-STS:vm_state': 'error',
     'OS-EXT-STS:power_state': 1,
     'os-extended-volumes:volumes_attached': [],
     'config_drive': 'True',
     'security_groups': [{'name': 'default'}]},
    ('2.47', True, VmState.ACTIVE): {'id': '0b6b5c1e-1111-2222-3333-444455556666',
     'name': 'web',
     'status': 'REBOOT',
     'tenant_id': 'p1',
     'user_id': 'u1',
     'metadata': {'role': 'web'},
     'hostId': '4a619b6f283c9bde622de1daf53a68c016813525d84227419b69d671',
     'image': {'id': '155d900f-4e14-4e4c-a73d-069cbf4541e6',
               'links': [{'rel': 'bookmark',
                          'href': 'http://cloud:8774/p1/images/155d900f-4e14-4e4c-a73d-069cbf4541e6'}]},
     'flavor': {'vcpus': 1,
                'ram': 2048,
                'disk': 20,
                'ephemeral': 1,
                'swap': 512,
                'original_name': 'm1.small',
                'extra_specs': {'hw:cpu_policy': 'shared'}},
     'created': '2026-03-01T12:00:05Z',
     'updated': '2026-03-01T12:01:05Z',
     'addresses': {'private': [{'version': 4,
                                'addr': '10.0.0.5',
                                'OS-EXT-IPS:type': 'fixed',
                                'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:00:00:01'},
                               {'version': 6,
                                'addr': 'fd00::5',
                                'OS-EXT-IPS:type': 'fixed',
                                'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:00:00:01'}]},
     'accessIPv4': '192.0.2.1',
     'accessIPv6': '2001:db8::1',
     'links': [{'rel': 'self',
                'href': 'http://cloud:8774/v2.1/p1/servers/0b6b5c1e-1111-2222-3333-444455556666'},
               {'rel': 'bookmark',
                'href': 'http://cloud:8774/p1/servers/0b6b5c1e-1111-2222-3333-444455556666'}],
     'OS-DCF:diskConfig': 'MANUAL',
     'locked': True,
     'description': 'front',
     'tags': ['a', 'b'],
     'key_name': 'key',
     'OS-SRV-USG:launched_at': '2026-03-01T12:00:05.123456',
     'OS-SRV-USG:terminated_at': None,
     'OS-EXT-AZ:availability_zone': 'nova',
     'OS-EXT-STS:task_state': 'rebooting',
     'OS-EXT-STS:vm_state': 'active',
     'OS-EXT-STS:power_state': 1,
     'os-extended-volumes:volumes_attached': [],
     'config_drive': 'True',
     'security_groups': [{'name': 'default'}],
     'OS-EXT-SRV-ATTR:host': 'host1',
     'OS-EXT-SRV-ATTR:instance_name': 'instance-0b6b5c1e-1111-2222-3333-444455556666',
     'OS-EXT-SRV-ATTR:hypervisor_hostname': 'host1.example',
     'OS-EXT-SRV-ATTR:reservation_id': 'r-1',
     'OS-EXT-SRV-ATTR:launch_index': 1,
     'OS-EXT-SRV-ATTR:kernel_id': '',
     'OS-EXT-SRV-ATTR:ramdisk_id': '',
     'OS-EXT-SRV-ATTR:hostname': 'web',
     'OS-EXT-SRV-ATTR:root_device_name': None,
     'OS-EXT-SRV-ATTR:user_data': 'dXNlcg==',
     'host_status': 'UP'},
    ('2.75', False, VmState.BUILDING): {'id': '0b6b5c1e-1111-2222-3333-444455556666',
     'name': 'web',
     'status': 'BUILD',
     'tenant_id': 'p1',
     'user_id': 'u1',
     'metadata': {'role': 'web'},
     'hostId': '4a619b6f283c9bde622de1daf53a68c016813525d84227419b69d671',
     'image': {'id': '155d900f-4e14-4e4c-a73d-069cbf4541e6',
               'links': [{'rel': 'bookmark',
                          'href': 'http://cloud:8774/p1/images/155d900f-4e14-4e4c-a73d-069cbf4541e6'}]},
     'flavor': {'vcpus': 1,
                'ram': 2048,
                'disk': 20,
                'ephemeral': 1,
                'swap': 512,
                'original_name': 'm1.small'},
     'created': '2026-03-01T12:00:05Z',
     'updated': '2026-03-01T12:01:05Z',
     'addresses': {},
     'accessIPv4': '192.0.2.1',
     'accessIPv6': '2001:db8::1',
     'links': [{'rel': 'self',
                'href': 'http://cloud:8774/v2.1/p1/servers/0b6b5c1e-1111-2222-3333-444455556666'},
               {'rel': 'bookmark',
                'href': 'http://cloud:8774/p1/servers/0b6b5c1e-1111-2222-3333-444455556666'}],
     'OS-DCF:diskConfig': 'MANUAL',
     'progress': 40,
     'locked': True,
     'description': 'front',
     'tags': ['a', 'b'],
     'trusted_image_certificates': None,
     'locked_reason': 'audit',
     'key_name': 'key',
     'OS-SRV-USG:launched_at': '2026-03-01T12:00:05.123456',
     'OS-SRV-USG:terminated_at': None,
     'OS-EXT-AZ:availability_zone': 'nova',
     'OS-EXT-STS:task_state': 'rebooting',
     'OS-EXT-STS:vm_state': 'building',
     'OS-EXT-STS:power_state': 1,
     'os-extended-volumes:volumes_attached': [],
     'config_drive': 'True',
     'security_groups': [{'name': 'default'}]},
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_a_listed_body_keeps_its_keys_values_and_order(case: tuple[str, bool, VmState]) -> None:
    version, rights, state = case
    assert json.dumps(body_of(version, rights, state)) == json.dumps(CASES[case])
