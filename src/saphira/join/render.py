"""The text of the files the join writes: pure functions of the answers and facts.

``compute_conf`` is the node's saphira.conf, read by ``saphira-compute`` and
``saphira-network-agent`` alike (the install guide's compute ``nova.conf``:
transport, the service users, the endpoints, ``my_ip``, the paths, VNC and
the virt type the probe proved); ``agent_conf`` is what only the network
agent reads (its bridge mappings), so its command line must name both files.
"""

from __future__ import annotations

from dataclasses import dataclass

from saphira.join.answers import Answers

HEADER = "# Written by saphira-openstack-setup-compute; kept unless --force.\n"
COMPUTE_CONF = "saphira.conf"
AGENT_CONF = "network-agent.conf"


@dataclass(frozen=True)
class Node:
    """What the join learned about this host."""

    my_ip: str
    virt_type: str  # kvm only when the probe proved it, else qemu
    state_dir: str
    compute_driver: str = "libvirt.LibvirtDriver"


def _service(
    group: str, answers: Answers, user: str, password: str, endpoint: str = ""
) -> list[str]:
    first = (
        f"www_authenticate_uri = {answers.identity_url}"
        if group == "keystone_authtoken"
        else f"region_name = {answers.region}"
    )
    return [
        "", f"[{group}]", first, f"auth_url = {answers.identity_url}", "auth_type = password",
        "project_domain_name = Default", "user_domain_name = Default",
        "project_name = service", f"username = {user}", f"password = {password}",
        *([f"endpoint_override = {endpoint}"] if endpoint else []),
    ]  # fmt: skip


def compute_conf(answers: Answers, node: Node) -> str:
    lines = [
        HEADER.rstrip("\n"),
        "[DEFAULT]",
        f"host = {answers.host}",
        f"my_ip = {node.my_ip}",
        f"state_path = {node.state_dir}",
        f"transport_url = {answers.transport_url}",
        f"region_name = {answers.region}",
        f"compute_driver = {node.compute_driver}",
        *_service("keystone_authtoken", answers, "nova", answers.nova_password),
        *_service(
            "placement", answers, "placement", answers.placement_password, answers.placement_url
        ),
        *_service("neutron", answers, "neutron", answers.neutron_password, answers.network_url),
    ]
    if answers.metadata_secret:  # the node's metadata agent signs for the controller's API
        lines += [f"metadata_proxy_shared_secret = {answers.metadata_secret}",
                  "service_metadata_proxy = true",
                  "", "[metadata_agent]", f"nova_metadata_host = {answers.controller}"]  # fmt: skip
    lines += [
        "", "[glance]", f"api_servers = {answers.glance_url}",
        "", "[oslo_concurrency]", f"lock_path = {node.state_dir}/tmp",
        "", "[vnc]", "enabled = true", "server_listen = 0.0.0.0",
        f"server_proxyclient_address = {node.my_ip}",
        f"novncproxy_base_url = {answers.novncproxy_base_url}",
        "", "[libvirt]", "# kvm only when a probe guest booted under KVM (--facts shows why)",
        f"virt_type = {node.virt_type}",
    ]  # fmt: skip
    return "\n".join(lines) + "\n"


def agent_conf(answers: Answers) -> str:
    return (
        f"{HEADER}[ovs]\nbridge_mappings = {answers.bridge_mapping}\n\n"
        f"[linux_bridge]\nbridge_mappings = {answers.bridge_mapping}\n"
    )
