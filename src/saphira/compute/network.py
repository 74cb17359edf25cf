"""A server's ports: chosen, made or taken over, bound to this host, and given back.

What the user asked for (the build order's ``requested_networks()``, the
only place it is kept) decides, as Nova's network API does:

* ``"none"``: no NIC;
* ``"auto"`` (also when nothing was said): the project's own networks and the
  shared ones, external networks left out; none means no NIC, one is used,
  several abort the build (the user must pick one);
* a list of ``{"uuid"}``, ``{"uuid", "fixed_ip"}`` or ``{"port"}``: a new port
  on each network, and each of the user's ports taken over.

Everything the user asked for is looked up, made and taken with the *user's*
token (the request context's, as Nova's ``get_client(context)``), so every
network policy applies to it as to ``openstack port create``: a chosen
address, another project's network, port or security group. Only then does
the service user (``[neutron]``, an admin) bind each port to this host and
set ``device_owner`` (``compute:<zone>``), which the user may not do. Ports
made here belong to the instance's project and carry ``device_id`` (the
instance); the user's ports are only updated so. Anything that fails on the
way undoes what was done (ports made are deleted, ports taken over are
unbound, as the service) before the error goes up: no port leaks out of a
failed build.

The user's token may have expired when the host gets to the networking step
(normally seconds after the request): the service's own token goes along
(``X-Service-Token``), with which the network service still accepts it
within ``[identity] allow_expired_window``; past that the build fails with
the identity service's 401 as its fault.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from saphira import exception
from saphira.clients.network import NetworkClient, NetworkRefused
from saphira.clients.network import NetworkNotFound as NotInNetworkService
from saphira.compute import network_errors as errors
from saphira.compute.vifs import instance_vif
from saphira.context import RequestContext
from saphira.objects import Instance, InstanceVIF

LOG = logging.getLogger(__name__)
AUTO, NONE = "auto", "none"
UNBIND = {"device_id": "", "device_owner": "", "binding:host_id": None, "binding:profile": None}
NOT_BOUND = ("binding_failed", "unbound")
# Refusals Nova answers differently from the network service: a quota is its
# PortLimitExceeded (403), an exhausted subnet its NoMoreFixedIps (400).
_REFUSALS = {"OverQuota": 403, "IpAddressGenerationFailure": 400}


@dataclass(frozen=True)
class Requested:
    network_id: str
    port_id: str | None = None  # the user's port (on network_id)
    fixed_ip: str | None = None
    tag: str | None = None


@dataclass
class Allocation:
    """The instance's bound ports in request order, and which of them were made here."""

    ports: list[dict[str, Any]] = field(default_factory=list)
    created: set[str] = field(default_factory=set)
    networks: dict[str, dict[str, Any]] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)  # port id -> the user's device tag

    def vifs(self) -> list[InstanceVIF]:
        return [
            instance_vif(port, self.networks[port["network_id"]], port["id"] not in self.created,
                         self.tags.get(port["id"]))
            for port in self.ports
        ]  # fmt: skip


class Networking:
    """The compute agent's side of the network service, for one host."""

    def __init__(self, client: NetworkClient, host: str, default_zone: str = "nova") -> None:
        self.client, self.host, self.default_zone = client, host, default_zone

    # -- build ----------------------------------------------------------------
    def allocate(self, instance: Instance, request: Any, ctxt: RequestContext) -> Allocation:
        """Bound ports for ``request`` (see the module's list), made as ``ctxt``'s user.
        Raises BuildAborted, or PortBindingFailed when this host cannot wire one."""
        done = Allocation()
        try:
            user = self._user(ctxt)
            requests = self._requests(user, instance, request, done)
            creates = any(not asked.port_id for asked in requests)
            groups = self._security_groups(user, instance) if creates else None
            for asked in requests:
                if asked.port_id:
                    port = self._take_over(user, instance, asked.port_id)
                else:
                    port = self._create(user, instance, asked, groups)
                    done.created.add(port["id"])
                done.ports.append(port)  # before binding: an undo must see it
                done.ports[-1] = self._bind(instance, port["id"])
                if asked.tag:
                    done.tags[port["id"]] = asked.tag
            for port in done.ports:
                if port.get("binding:vif_type") in NOT_BOUND:
                    raise errors.PortBindingFailed(
                        port_id=port["id"], host=self.host, vif_type=port.get("binding:vif_type")
                    )
        except BaseException:
            self.release(done)
            raise
        return done

    def release(self, done: Allocation) -> None:
        """Undo an allocation: delete the ports made, unbind the user's."""
        for port in done.ports:
            self._give_back(port["id"], delete=port["id"] in done.created)

    def detach(self, vif: InstanceVIF) -> None:
        """One NIC's port after it left the guest: deleted if made for the server,
        unbound if the user brought it (as Nova's deallocate_port_for_instance)."""
        self._give_back(vif.port_id, delete=not vif.preserve_on_delete, quiet=False)

    # -- move -----------------------------------------------------------------
    def rebind(self, instance: Instance) -> list[InstanceVIF]:
        """The instance's ports bound to this host instead, as the info cache keeps them.

        A guest that moved (a resize to, or its revert back to, this host) is
        wired by this host's L2 agent only once its ports say so; the new
        binding may also bring another VIF type or bridge.
        """
        moved = []
        for cached in instance.network_info:
            port = self.client.update_port(cached.port_id, {"binding:host_id": self.host})
            if port.get("binding:vif_type") in NOT_BOUND:
                raise errors.PortBindingFailed(
                    port_id=port["id"], host=self.host, vif_type=port.get("binding:vif_type")
                )
            details = port.get("binding:vif_details") or {}
            moved.append(dataclasses.replace(
                cached, vif_type=str(port.get("binding:vif_type") or ""),
                bridge=details.get("bridge_name"), active=port.get("status") == "ACTIVE",
            ))  # fmt: skip
        return moved

    # -- delete ---------------------------------------------------------------
    def deallocate(self, instance: Instance) -> None:
        """Every port the network service has for the instance: the user's (as the
        info cache remembers them) unbound, the others deleted, as Nova does."""
        keep = {vif.port_id for vif in instance.network_info if vif.preserve_on_delete}
        for port in self.client.list_ports(device_id=instance.uuid):
            self._give_back(port["id"], delete=port["id"] not in keep, quiet=False)

    # -- decisions (as the user) ----------------------------------------------
    def _user(self, ctxt: RequestContext) -> NetworkClient:
        if not ctxt.auth_token:
            raise errors.NetworkAllocationFailed("the request carries no user token", 401)
        return self.client.as_user(ctxt.auth_token)

    def _requests(
        self, user: NetworkClient, instance: Instance, request: Any, done: Allocation
    ) -> list[Requested]:
        if request == NONE or not request:
            return []
        if request == AUTO:
            return self._auto(user, instance, done)
        if not isinstance(request, list):
            raise errors.NetworkAllocationFailed(reason=f"unreadable networks request {request!r}")
        return [self._one(user, instance, item, done) for item in request]

    def _auto(self, user: NetworkClient, instance: Instance, done: Allocation) -> list[Requested]:
        own = self._call(user.list_networks, project_id=instance.project_id, shared=False)
        shared = self._call(user.list_networks, shared=True)
        usable = {n["id"]: n for n in [*own, *shared] if not n.get("router:external")}
        if len(usable) > 1:
            raise errors.NetworkAmbiguous()
        for network_id, network in usable.items():
            if not network.get("subnets"):
                raise errors.NetworkRequiresSubnet(network_id=network_id)
        done.networks.update(usable)
        return [Requested(network_id) for network_id in usable]

    def _one(
        self, user: NetworkClient, instance: Instance, item: dict[str, Any], done: Allocation
    ) -> Requested:
        port_id, tag = item.get("port"), item.get("tag")
        if port_id:
            port = self._user_port(user, instance, str(port_id))
            self._network(user, instance, port["network_id"], done, owned_port=True)
            return Requested(port["network_id"], port_id=port["id"], tag=tag)
        network_id = str(item.get("uuid") or "")
        self._network(user, instance, network_id, done)
        return Requested(network_id, fixed_ip=item.get("fixed_ip"), tag=tag)

    def _network(
        self,
        user: NetworkClient,
        instance: Instance,
        network_id: str,
        done: Allocation,
        owned_port: bool = False,
    ) -> None:
        """Known, visible to the user and the project, not someone's external
        network, with a subnet."""
        missing = errors.NetworkNotFound(network_id=network_id)
        network = self._call(user.show_network, network_id, missing=missing)
        mine = network.get("project_id") == instance.project_id or network.get("shared")
        if not (mine or owned_port):
            if network.get("router:external"):
                raise errors.ExternalNetworkAttachForbidden(network_id=network_id)
            raise errors.NetworkNotFound(network_id=network_id)
        if not network.get("subnets") and not owned_port:
            raise errors.NetworkRequiresSubnet(network_id=network_id)
        done.networks[network_id] = network

    def _user_port(self, user: NetworkClient, instance: Instance, port_id: str) -> dict[str, Any]:
        missing = errors.PortNotFound(port_id=port_id)
        port: dict[str, Any] = self._call(user.show_port, port_id, missing=missing)
        if port.get("project_id") != instance.project_id:
            raise errors.PortNotFound(port_id=port_id)
        if port.get("device_id") not in ("", None, instance.uuid):
            raise errors.PortInUse(port_id=port_id)
        return port

    def _security_groups(self, user: NetworkClient, instance: Instance) -> list[str] | None:
        """Ids of the groups asked for by name or id; None for the default group
        alone (the network service gives a new port its project's default)."""
        names = json.loads(instance.system_metadata.get("security_groups", '["default"]'))
        if names == ["default"]:
            return None
        ids = []
        for name in names:
            found = self._call(user.list_security_groups, project_id=instance.project_id, name=name)
            if not found:
                found = self._call(user.list_security_groups, project_id=instance.project_id,
                                   id=name)  # fmt: skip
            if not found:
                raise errors.SecurityGroupNotFound(name=name, project_id=instance.project_id)
            if len(found) > 1:
                raise errors.SecurityGroupNotUnique(name=name)
            ids.append(found[0]["id"])
        return ids

    # -- changes ----------------------------------------------------------------
    def _create(
        self, user: NetworkClient, instance: Instance, asked: Requested, groups: list[str] | None
    ) -> dict[str, Any]:
        """The user's port, as Nova's _create_port_minimal: device_id says whose it is."""
        attrs: dict[str, Any] = {
            "network_id": asked.network_id,
            "project_id": instance.project_id,
            "device_id": instance.uuid,
        }
        if asked.fixed_ip:
            attrs["fixed_ips"] = [{"ip_address": asked.fixed_ip}]
        if groups is not None:
            attrs["security_groups"] = groups
        port: dict[str, Any] = self._call(user.create_port, attrs)
        return port

    def _take_over(self, user: NetworkClient, instance: Instance, port_id: str) -> dict[str, Any]:
        """The user's own port claimed for the instance, as the user (who must be
        allowed to update it)."""
        port: dict[str, Any] = self._call(user.update_port, port_id, {"device_id": instance.uuid})
        return port

    def _bind(self, instance: Instance, port_id: str) -> dict[str, Any]:
        """As the service: the host and the owner, which the user may not set."""
        zone = instance.availability_zone or self.default_zone
        attrs = {"device_owner": f"compute:{zone}", "binding:host_id": self.host}
        port: dict[str, Any] = self._call(self.client.update_port, port_id, attrs)
        return port

    def _give_back(self, port_id: str, *, delete: bool, quiet: bool = True) -> None:
        """Delete or unbind; a port already gone is fine. ``quiet``: log other
        failures instead of raising (an undo must not hide the first error)."""
        try:
            if delete:
                self.client.delete_port(port_id)
            else:
                self.client.update_port(port_id, UNBIND)
        except NotInNetworkService:
            return
        except exception.SaphiraError:
            if not quiet:
                raise
            LOG.exception("could not %s port %s", "delete" if delete else "unbind", port_id)

    def _call(
        self, method: Any, *args: Any, missing: errors.BuildAborted | None = None, **kwargs: Any
    ) -> Any:
        """A refusal or an unreachable service is the request's fault, not this host's:
        ``missing`` for a 404, the network service's own message otherwise."""
        try:
            return method(*args, **kwargs)
        except NotInNetworkService as error:
            raise missing or errors.NetworkAllocationFailed(error.message, 404) from None
        except NetworkRefused as error:
            code = _REFUSALS.get(error.neutron_type, error.code)
            raise errors.NetworkAllocationFailed(error.message, code) from None
        except exception.ServiceUnavailable as error:
            raise errors.NetworkAllocationFailed(error.message, error.code) from None
