"""The second tempest run: real tiny-image guests that tempest SSHes into.

`saphira up` with libvirt (TCG), Open vSwitch, dnsmasq, the DHCP namespace's
metadata proxy and `provider` on a bridge of its own, whose gateway address
is the host's: tempest, on the host, reaches each guest's fixed address
(connect_method fixed) and logs in as root with the key pair it made, which
the guest read from the metadata service or its config drive. The tests are
those of include-list-guests.txt minus pending-guests.txt, judged as
test_tempest.py judges its run; the verdict is also written to
``$SAPHIRA_TEST_RESULTS/tempest-guests.txt`` (default: test-results/ in the
repository) for notes to quote.
"""

from __future__ import annotations

import configparser
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.functional.clients import sdk
from tests.functional.cloud import Cloud
from tests.functional.guest_cloud import guest_cloud
from tests.tempest import lists, provision, report, runner, workspace

# About a minute on a quiet machine (a cloud of its own, three TCG guests): not long.
pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]
HERE = Path(__file__).parent
INCLUDE = HERE / "include-list-guests.txt"
PENDING = HERE / "pending-guests.txt"
NETWORK = "provider"
SSH_USER = "root"  # the tiny image's one user (saphira.guest_image.ssh)
GUEST_TIMEOUT = "300"  # TCG guests on a shared two-core host
RUN_TIMEOUT = 1200  # seconds for the whole tempest run


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    bridge = f"sxbr{secrets.token_hex(4)}"
    settings = (
        f"[ovs]\nbridge_mappings = physnet1:{bridge}\n[neutron]\nservice_metadata_proxy = true\n"
        f"metadata_proxy_shared_secret = {secrets.token_urlsafe(12)}\n"
    )
    with guest_cloud("tempest", tmp_path_factory.mktemp("tempest-guests"), settings) as running:
        yield running[0]


def guest_settings(conf: configparser.ConfigParser) -> None:
    """Validation on, over the provider network's fixed addresses, with longer waits."""
    conf["validation"] = {
        "run_validation": "true",
        "connect_method": "fixed",
        "auth_method": "keypair",
        "image_ssh_user": SSH_USER,
        "network_for_ssh": NETWORK,
        "ip_version_for_ssh": "4",
        "security_group": "true",
        "security_group_rules": "true",
        "ssh_timeout": GUEST_TIMEOUT,
        "connect_timeout": "30",
        "ping_timeout": "120",
    }
    conf["compute"].update(fixed_network_name=NETWORK, build_timeout=GUEST_TIMEOUT,
                           build_interval="2")  # fmt: skip
    conf["network"].update(shared_physical_network="true", project_networks_reachable="false",
                           build_timeout=GUEST_TIMEOUT)  # fmt: skip
    conf["network-feature-enabled"]["floating_ips"] = "false"


def test_tempest_with_guests(cloud: Cloud, tmp_path: Path) -> None:
    tests = lists.load(INCLUDE, PENDING)
    admin = sdk(cloud.clouds_yaml, "admin")
    done = provision.provision(admin)
    tiny = admin.image.find_image("saphira-tiny", ignore_missing=False).id
    flavor = admin.compute.find_flavor("saphira.tiny", ignore_missing=False).id
    done.image_ref = done.image_ref_alt = str(tiny)
    done.flavor_ref = done.flavor_ref_alt = str(flavor)
    workdir = tmp_path / "tempest"
    conf = workspace.write(workdir, cloud.url("identity"), done, tests.include_regexes(),
                           guest_settings)  # fmt: skip
    result = runner.run(workdir, conf, RUN_TIMEOUT)
    verdict = report.judge(tests, result)
    title = "tempest against real tiny-image guests (SSH, run_validation)"
    report.write_results(report.RESULTS / "tempest-guests.txt", verdict, result, title)
    print("\n".join(verdict.lines))
    print(report.summary(verdict))
    assert verdict.counts["passed"] > 0, result.output[-4000:]
    assert not verdict.problems, "\n".join([report.summary(verdict), *verdict.problems])
