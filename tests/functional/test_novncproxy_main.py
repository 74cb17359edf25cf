"""`saphira-novncproxy` as its own process: ready on [vnc] novncproxy_host and
novncproxy_port (+ port_offset), serving the noVNC client and refusing a token
no cell holds; SIGUSR2 writes its threads' stacks to its log and it runs on; SIGTERM
stops it with exit 0."""

from __future__ import annotations

import signal
import sys
import urllib.request
from pathlib import Path

import pytest

from saphira import conf as saphira_conf
from saphira.db import cells
from saphira.db.api import cells as api_cells
from tests.functional.cloud import free_offset
from tests.functional.process import ManagedProcess
from tests.polling import wait_for
from tests.ws_client import Refused, WsClient

pytestmark = pytest.mark.functional


def test_the_proxy_runs_alone(tmp_path: Path) -> None:
    offset = free_offset()
    conf = tmp_path / "nova.conf"
    conf.write_text(
        f"[DEFAULT]\nstate_path = {tmp_path / 'state'}\nport_offset = {offset}\n"
        "[vnc]\nnovncproxy_host = 127.0.0.1\n"
    )
    (tmp_path / "state").mkdir()
    made = saphira_conf.load(["--config-file", str(conf)])
    cells.api_db_sync(made)  # the databases as saphira-manage makes them: a cell, no tokens
    api_cells.map_cell0(made)
    api_cells.create_cell(made, name="cell1")
    cells.db_sync(made)
    proxy = ManagedProcess("saphira-novncproxy", tmp_path / "proxy.log",
                           lambda line: line == "saphira-novncproxy: ready")  # fmt: skip
    proxy.launch([sys.executable, "-m", "saphira.cmd.novncproxy", "--config-file", str(conf)])
    try:
        port = 6080 + offset
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/vnc_lite.html", timeout=30) as page:
            assert b"noVNC" in page.read()
        with pytest.raises(Refused) as refused:
            WsClient.open("127.0.0.1", port, "/?token=nobody-has-this")
        assert refused.value.status == 403
        assert proxy.proc is not None
        proxy.proc.send_signal(signal.SIGUSR2)
        # The dump is written thread by thread: wait for the main thread's frame itself.
        wait_for("the main thread's stack in its log", lambda: "_until_stopped" in proxy.log(),
                 timeout=30, interval=0.2)  # fmt: skip
        assert "most recent call first" in proxy.log() and proxy.proc.poll() is None
    finally:
        assert proxy.stop() == 0, proxy.log()
