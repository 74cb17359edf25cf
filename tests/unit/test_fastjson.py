"""saphira.common.fastjson: orjson's speed with json's values, json for what it refuses."""

from __future__ import annotations

import json
from typing import Any

from saphira.api.wsgi.body import compact_json_response
from saphira.common import fastjson

BODY: dict[str, Any] = {
    "servers": [{
        "id": "7b1c", "name": "café ☃ 𝄞", "metadata": {"k": "a\"b\\c\n\t\u0001</script>"},
        "progress": 0, "locked": False, "fault": None, "tags": [], "big": 2**63 - 1,
        "nested": {"list": [1, -2, True, None, ""]},
    }],
}  # fmt: skip


def test_the_same_values_as_json_dumps_in_fewer_bytes() -> None:
    data = fastjson.dumps(BODY)
    assert json.loads(data) == BODY
    assert len(data) < len(json.dumps(BODY).encode())
    assert "café ☃ 𝄞".encode() in data  # UTF-8, not \u escapes


def test_what_orjson_refuses_is_written_by_json_dumps() -> None:
    for refused in ({"name": "lone \ud800 surrogate"}, {"big": 2**64}, {1: "int key"}):
        assert fastjson.dumps(refused) == json.dumps(refused).encode()


def test_the_response_is_json() -> None:
    response = compact_json_response(BODY)
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert json.loads(response.get_data()) == BODY


def test_what_orjson_refuses_to_read_is_read_by_json_loads() -> None:
    for text in ('{"a": NaN}', '{"big": 18446744073709551615}', '{"s": "\\ud800"}', "[]"):
        assert repr(fastjson.loads(text)) == repr(json.loads(text))
