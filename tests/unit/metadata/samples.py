"""An instance as the metadata builder sees it, for the metadata tests."""

from __future__ import annotations

import base64
from typing import Any

from saphira.objects import Flavor, Instance
from saphira.objects.network_info import InstanceVIF

UUID = "6e1b2a6c-0d7e-4f0b-9d3f-2f6a3d5c1e01"
PROJECT = "0f5e1a2b3c4d4e5f8a9b0c1d2e3f4a5b"
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHx0 test@saphira"
USER_DATA = b"#!/bin/sh\necho hello from user data\n"


def instance(**changes: Any) -> Instance:
    vif = InstanceVIF("3f0c9a51-aaaa-bbbb-cccc-000000000001", "fa:16:3e:00:00:01", "net-1",
                      fixed_ips=["10.0.0.5"], vif_type="ovs", mtu=1450)  # fmt: skip
    values: dict[str, Any] = {
        "display_name": "vm one", "hostname": "vm-one", "id": 42, "image_ref": "abcdef12-3456",
        "key_name": "mykey", "key_data": KEY, "metadata": {"role": "web"},
        "user_data": base64.b64encode(USER_DATA).decode(), "availability_zone": "zone-a",
        "reservation_id": "r-00000001", "network_info": [vif],
        "system_metadata": {"security_groups": '["default", "web"]'},
    }  # fmt: skip
    values.update(changes)
    return Instance(UUID, PROJECT, "user-1", Flavor("1", "m1.tiny", 1, 512, 1), **values)
