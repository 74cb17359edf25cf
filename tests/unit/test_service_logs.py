"""Log lines name the request id, user and project of the request they belong to."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira import conf as saphira_conf
from saphira.api.wsgi import logcontext
from saphira.service import logs


@pytest.fixture
def restore_root() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


def test_lines_name_the_request_or_show_dashes(tmp_path: Path, restore_root: None) -> None:
    log_file = tmp_path / "saphira.log"
    conf = saphira_conf.load([], overrides={"DEFAULT": {"log_file": str(log_file), "debug": True}})
    logs.setup(conf)
    log = logging.getLogger("saphira.test")
    log.info("outside")
    token = logcontext.bind("req-1234")
    try:
        logcontext.set_identity("u-42", "p-7")
        log.debug("inside")
    finally:
        logcontext.reset(token)
    lines = log_file.read_text().splitlines()
    assert lines[0].endswith("INFO saphira.test [- - -] outside")
    assert lines[1].endswith("DEBUG saphira.test [req-1234 u-42 p-7] inside")
