"""The Networks and Security groups pages by route endpoint (``routes._network_routes``)."""

from __future__ import annotations

from saphira.dashboard.app import View
from saphira.dashboard.views import networks, rules, secgroups, subnets

NETWORK_VIEWS: dict[str, View] = {
    "networks": networks.listing,
    "network_form": networks.form,
    "network_create": networks.create,
    "network": networks.show,
    "network_confirm": networks.confirm,
    "network_delete": networks.delete,
    "subnet_form": subnets.form,
    "subnet_create": subnets.create,
    "subnet_confirm": subnets.confirm,
    "subnet_delete": subnets.delete,
    "secgroups": secgroups.listing,
    "secgroup_create": secgroups.create,
    "secgroup": secgroups.show,
    "secgroup_confirm": secgroups.confirm,
    "secgroup_delete": secgroups.delete,
    "rule_form": rules.form,
    "rule_add": rules.add,
    "rule_confirm": rules.confirm,
    "rule_delete": rules.delete,
}
