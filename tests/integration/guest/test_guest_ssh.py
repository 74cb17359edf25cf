"""The tiny guest's SSH server under QEMU (TCG): root gets in with the key the
metadata service gave, runs a command, and nobody gets in without that key."""

from __future__ import annotations

import sys
from pathlib import Path

import paramiko
import pytest

from saphira.guest_image import READY, GuestImage
from tests.guest_ssh import connect, new_key_pair, run
from tests.integration.guest import key_metadata
from tests.integration.guest.qemu import Guest, direct_boot_args, user_nic
from tests.sockets import free_port

pytestmark = pytest.mark.integration
MD_ADDR = "10.0.2.100"


def test_root_logs_in_with_the_metadata_key_only(tiny_image: GuestImage, workdir: Path) -> None:
    keys = new_key_pair(ecdsa=True)  # tempest's kind of key (the CLI's are ed25519 or RSA)
    (workdir / "key.pub").write_text(keys.public)
    port = free_port()
    server = f"{sys.executable} {key_metadata.__file__} {workdir / 'key.pub'}"
    nic = user_nic(f"guestfwd=tcp:{MD_ADDR}:80-cmd:{server}", f"hostfwd=tcp:127.0.0.1:{port}-:22")
    cmdline = f"{tiny_image.cmdline} saphira.metadata=http://{MD_ADDR}"
    args = [*direct_boot_args(tiny_image.vmlinux, tiny_image.initramfs, cmdline), *nic]
    with Guest(workdir, args) as guest:
        out = guest.wait_for(READY)
        assert "SAPHIRA-GUEST: ssh listening on 22 Fingerprint: " in out, out[-2000:]
        with connect("127.0.0.1", port, keys.paramiko()) as client:
            assert run(client, "hostname; id -u") == (0, f"{key_metadata.NAME}\n0\n")
            assert run(client, "exit 3")[0] == 3
            # What tempest's guest checks run: curl (GET) against the metadata service,
            # sudo, and blkid -L (no config drive here: it fails as blkid does).
            status, meta = run(client, f"curl http://{MD_ADDR}/openstack/latest/meta_data.json")
            assert (status, meta) == (0, key_metadata.meta_data(keys.public))  # byte for byte
            assert run(client, "sudo id -u") == (0, "0\n")
            assert run(client, "blkid -L config-2 -o device")[0] != 0
        stranger = new_key_pair()
        with pytest.raises(paramiko.AuthenticationException):
            connect("127.0.0.1", port, stranger.paramiko())
        with pytest.raises(paramiko.AuthenticationException):
            connect("127.0.0.1", port, None, password="")
