"""What crosses the bus: contexts, versioned objects, transport URLs and options."""

from __future__ import annotations

import dataclasses
import datetime
import json

import pytest
from oslo_config import cfg

from saphira import exception
from saphira.conf import load
from saphira.context import RequestContext
from saphira.objects import base
from saphira.rpc import payload
from saphira.rpc.serializer import Serializer, context_from_dict, context_to_dict
from saphira.rpc.transport import get_rpc_transport, mask
from tests.rpc_ping import Pair


def test_context_round_trips_and_ignores_unknown_keys() -> None:
    ctxt = RequestContext(user_id="u", project_id="p", roles=("admin",), auth_token="t")
    values = context_to_dict(ctxt)
    assert values["roles"] == ["admin"]
    assert values == {**dataclasses.asdict(ctxt), "roles": ["admin"]}  # every field
    assert context_from_dict({**values, "from_the_future": 1}) == ctxt


def test_payload_round_trip_with_nesting_and_datetimes() -> None:
    when = datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.UTC)
    wire = payload.to_primitive({"pairs": [Pair(1, 2)], "at": when})
    assert wire["pairs"][0][base.VERSION] == "1.0"
    assert json.loads(json.dumps(wire)) == wire  # what RabbitMQ carries
    assert payload.from_primitive(wire) == {"pairs": [Pair(1, 2)], "at": when}


def test_newer_minor_is_accepted_and_unknown_fields_dropped() -> None:
    wire = payload.to_primitive(Pair(1, 2))
    wire[base.VERSION] = "1.7"
    wire[base.DATA]["added_in_1_7"] = True
    assert payload.from_primitive(wire) == Pair(1, 2)


def test_other_major_and_unknown_names_are_refused() -> None:
    wire = payload.to_primitive(Pair(1, 2))
    with pytest.raises(exception.ValidationError, match="cannot be read"):
        payload.from_primitive({**wire, base.VERSION: "2.0"})
    with pytest.raises(exception.ValidationError, match="unknown object"):
        payload.from_primitive({**wire, base.NAME: "Nope"})


def test_serializer_speaks_both_halves() -> None:
    serializer = Serializer()
    ctxt = RequestContext(project_id="p")
    assert serializer.deserialize_context(serializer.serialize_context(ctxt)) == ctxt
    assert serializer.deserialize_entity(None, serializer.serialize_entity(None, Pair(3, 4))) == (
        Pair(3, 4)
    )


def test_nova_conf_messaging_keys_are_read(tmp_path: object) -> None:
    path = f"{tmp_path}/nova.conf"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(
            "[DEFAULT]\ntransport_url = rabbit://openstack:RABBIT_PASS@controller:5672/\n"
            "rpc_response_timeout = 30\n"
            "[oslo_messaging_rabbit]\nheartbeat_timeout_threshold = 20\n"
            "[oslo_messaging_notifications]\ndriver = messagingv2\n"
        )
    conf = load(["--config-file", path])
    assert conf.transport_url.startswith("rabbit://")
    assert conf.rpc_response_timeout == 30
    assert conf.oslo_messaging_rabbit.heartbeat_timeout_threshold == 20
    assert conf.oslo_messaging_notifications.driver == ["messagingv2"]


def test_saphira_defaults() -> None:
    conf = load()
    assert conf.transport_url == "inproc://"
    assert conf.control_exchange == "saphira"
    assert conf.oslo_messaging_rabbit.amqp_durable_queues is True


def test_a_bad_transport_url_is_a_config_error(conf: cfg.ConfigOpts) -> None:
    with pytest.raises(exception.ConfigError, match=r"transport_url nosuch://u:\*\*\*\*@h"):
        get_rpc_transport(conf, url="nosuch://u:secret@h:1/")


def test_mask_hides_passwords() -> None:
    assert mask("rabbit://u:secret@h:5672,v:other@g:5672/vh") == (
        "rabbit://u:****@h:5672,v:****@g:5672/vh"
    )
    assert mask("inproc://") == "inproc://"


def test_notifications_carry_the_context_without_its_token() -> None:
    ctxt = RequestContext(project_id="p", auth_token="secret")
    assert ctxt.redacted_copy() == RequestContext(
        request_id=ctxt.request_id, project_id="p", auth_token=None
    )
