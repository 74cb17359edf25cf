"""compact_json: the compute API's listing bodies by orjson, json.dumps' values."""

from __future__ import annotations

import json
from typing import Any

from saphira.api.wsgi.body import compact_json, compact_json_response

BODY: dict[str, Any] = {
    "servers": [{
        "id": "7b1c", "name": "café ☃ 𝄞", "metadata": {"k": "a\"b\\c\n\t\u0001</script>"},
        "progress": 0, "locked": False, "fault": None, "tags": [], "big": 2**63 - 1,
        "nested": {"list": [1, -2, True, None, ""]},
    }],
}  # fmt: skip


def test_the_same_values_as_json_dumps_in_fewer_bytes() -> None:
    data = compact_json(BODY)
    assert json.loads(data) == BODY
    assert len(data) < len(json.dumps(BODY).encode())
    assert "café ☃ 𝄞".encode() in data  # UTF-8, not \u escapes


def test_what_orjson_refuses_is_written_by_json_dumps() -> None:
    for refused in ({"name": "lone \ud800 surrogate"}, {"big": 2**64}, {1: "int key"}):
        assert compact_json(refused) == json.dumps(refused).encode()


def test_the_response_is_json() -> None:
    response = compact_json_response(BODY)
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert json.loads(response.get_data()) == BODY
