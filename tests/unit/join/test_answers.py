"""The answers: flags win, then the answers file, then prompts with defaults shown."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from saphira.exception import JoinRefused
from saphira.join import answers as ans

REQUIRED = {
    "controller": "ctl",
    "provider_nic": "eth1",
    "nova_password": "n",
    "placement_password": "p",
    "neutron_password": "q",
    "host": "node1",
}


def test_prompts_show_defaults_and_an_empty_line_takes_them() -> None:
    lines = [
        "ctl.example\n",
        "eth1\n",
        "\n",
        "\n",
        "\n",
        "\n",
        "\n",
        "npw\n",
        "ppw\n",
        "qpw\n",
        "\n",
        "\n",
        "\n",
        "\n",
        "\n",
        "\n",
        "\n",
    ]
    out = io.StringIO()
    got = ans.resolve({}, {"host": "node7"}, ans.Prompter(io.StringIO("".join(lines)), out))
    asked = out.getvalue()
    assert "Physical network name [physnet1]: " in asked
    assert "Provider bridge [br-physnet1]: " in asked
    assert "Identity URL [http://ctl.example:5000/v3]: " in asked
    assert "This compute host's name [node7]: " in asked
    assert "Password of the service user nova: " in asked  # no default, nothing shown
    assert got.controller == "ctl.example" and got.nova_password == "npw"
    assert got.transport_url == "rabbit://openstack:RABBIT_PASS@ctl.example:5672/"
    assert got.novncproxy_base_url == "http://ctl.example:6080/vnc_auto.html"
    assert got.placement_url == "http://ctl.example:8778"
    assert got.bridge_mapping == "physnet1:br-physnet1" and got.host == "node7"


def test_a_required_answer_is_asked_again_then_end_of_input_refuses() -> None:
    out = io.StringIO()
    with pytest.raises(JoinRefused, match="no answer for controller"):
        ans.resolve({}, {}, ans.Prompter(io.StringIO("\n\n"), out))
    assert out.getvalue().count("controller has no default") == 2


def test_given_answers_are_not_asked_and_follow_into_defaults() -> None:
    out = io.StringIO()
    given = {**REQUIRED, "physnet": "prov", "management_nic": "eth0"}
    got = ans.resolve(given, {}, ans.Prompter(io.StringIO("\n" * 20), out))
    assert got.bridge == "br-prov" and got.management_nic == "eth0"
    assert "Physical network" not in out.getvalue()


def test_non_interactive_needs_every_answer_without_a_default() -> None:
    missing = {k: v for k, v in REQUIRED.items() if k != "neutron_password"}
    with pytest.raises(JoinRefused, match="neutron_password is needed"):
        ans.resolve(missing, {}, None)
    assert ans.resolve(REQUIRED, {}, None).region == "RegionOne"


def test_answers_file_and_flags(tmp_path: Path) -> None:
    path = tmp_path / "answers.conf"
    path.write_text("[join]\ncontroller = from-file\nregion = R2\n")
    merged = ans.merged(ans.read_file(path), {"controller": "from-flag", "region": None})
    assert merged == {"controller": "from-flag", "region": "R2"}
    path.write_text("[join]\ncontroler = typo\n")
    with pytest.raises(JoinRefused, match="unknown answers controler"):
        ans.read_file(path)
