"""What the join needs to know, from flags, an answers file, a token or prompts.

Each ``Question`` names an ``Answers`` field, its prompt and its default
(which may follow from earlier answers: the controller's address gives the
URLs). Precedence: a flag, then the token's reply, then the answers file
(an INI file with a ``[join]`` section of the same names), then a prompt
(interactive) or the default (``--non-interactive``). A question without a
default must be answered.
"""

from __future__ import annotations

import configparser
import dataclasses
import getpass
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from saphira.exception import JoinRefused


@dataclass(frozen=True)
class Answers:
    controller: str
    provider_nic: str
    physnet: str
    bridge: str
    transport_url: str
    identity_url: str
    region: str
    nova_password: str
    placement_password: str
    neutron_password: str
    metadata_secret: str
    glance_url: str
    placement_url: str
    network_url: str
    novncproxy_base_url: str
    host: str
    management_nic: str  # "" when not named: then any interface but the provider NIC

    @property
    def bridge_mapping(self) -> str:
        return f"{self.physnet}:{self.bridge}"


Default = Callable[[Mapping[str, str]], str]


@dataclass(frozen=True)
class Question:
    name: str
    prompt: str
    default: Default | None
    secret: bool = False


def _const(value: str) -> Default:
    return lambda _known: value


def _on_controller(template: str) -> Default:
    return lambda known: template.format(controller=known["controller"])


QUESTIONS = (
    Question("controller", "Controller address", None),
    Question("provider_nic", "Provider network interface (becomes a port of the bridge)", None),
    Question("physnet", "Physical network name", _const("physnet1")),
    Question("bridge", "Provider bridge", lambda known: f"br-{known['physnet']}"),
    Question("transport_url", "RabbitMQ URL",
             _on_controller("rabbit://openstack:RABBIT_PASS@{controller}:5672/")),
    Question("identity_url", "Identity URL", _on_controller("http://{controller}:5000/v3")),
    Question("region", "Region", _const("RegionOne")),
    Question("nova_password", "Password of the service user nova", None, secret=True),
    Question("placement_password", "Password of the service user placement", None, secret=True),
    Question("neutron_password", "Password of the service user neutron", None, secret=True),
    Question("metadata_secret", "Metadata proxy shared secret (empty: none)", _const("")),
    Question("glance_url", "Image API URL", _on_controller("http://{controller}:9292")),
    Question("placement_url", "Placement API URL", _on_controller("http://{controller}:8778")),
    Question("network_url", "Network API URL", _on_controller("http://{controller}:9696")),
    Question("novncproxy_base_url", "noVNC proxy base URL",
             _on_controller("http://{controller}:6080/vnc_auto.html")),
    Question("host", "This compute host's name", None),
    Question("management_nic", "Management interface (empty: any but the provider NIC)",
             _const("")),
)  # fmt: skip
NAMES = frozenset(q.name for q in QUESTIONS)


def read_file(path: Path) -> dict[str, str]:
    """The ``[join]`` section of an answers file; an unknown key is refused."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        with path.open() as stream:
            parser.read_file(stream)
    except (OSError, configparser.Error) as error:
        raise JoinRefused(reason=f"cannot read the answers file {path}: {error}") from None
    values = dict(parser["join"]) if parser.has_section("join") else {}
    unknown = sorted(set(values) - NAMES)
    if unknown:
        raise JoinRefused(reason=f"{path}: unknown answers {', '.join(unknown)}")
    return values


class Prompter:
    """Asks on ``out`` and reads a line from ``stream``; end of input refuses."""

    def __init__(self, stream: TextIO, out: TextIO) -> None:
        self.stream, self.out = stream, out

    def ask(self, question: Question, default: str | None) -> str:
        for _ in range(3):
            shown = "" if default is None else f" [{'****' if question.secret else default}]"
            prompt = f"{question.prompt}{shown}: "
            if question.secret and self.stream.isatty():  # typed passwords are not echoed
                line = getpass.getpass(prompt, self.out) + "\n"
            else:
                self.out.write(prompt)
                self.out.flush()
                line = self.stream.readline()
            if not line:
                break
            value = line.strip() or default
            if value is not None:
                return value
            self.out.write(f"{question.name} has no default: an answer is needed\n")
        raise JoinRefused(reason=f"no answer for {question.name}")


def resolve(
    given: Mapping[str, str],
    defaults: Mapping[str, str],
    prompter: Prompter | None,
) -> Answers:
    """Fill every field: ``given`` wins, then a prompt (or a default without one)."""
    known: dict[str, str] = {}
    for question in QUESTIONS:
        default = defaults.get(question.name)
        if default is None and question.default is not None:
            default = question.default(known)
        if question.name in given:
            known[question.name] = given[question.name]
        elif prompter is not None:
            known[question.name] = prompter.ask(question, default)
        elif default is not None:
            known[question.name] = default
        else:
            raise JoinRefused(reason=f"{question.name} is needed (a flag or the answers file)")
    return Answers(**known)


def merged(*layers: Mapping[str, str | None]) -> dict[str, str]:
    """Later layers win; None and absent mean not given."""
    out: dict[str, str] = {}
    for layer in layers:
        out.update({k: v for k, v in layer.items() if v is not None})
    return out


def field_names() -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(Answers))
