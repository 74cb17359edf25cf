"""Logging for ``saphira up``: every line that belongs to a request names it.

saphira.api.wsgi knows the request id, user and project of the request a
worker thread is serving; its filter, on our handler, copies them onto each
record, so lines from deep inside identity or the database still say whose
request they served. Lines outside a request show "-".
"""

from __future__ import annotations

import faulthandler
import logging
import signal
import sys

from oslo_config import cfg

from saphira.api.wsgi import RequestLogFilter

FORMAT = (
    "%(asctime)s.%(msecs)03d %(process)d %(levelname)s %(name)s "
    "[%(request_id)s %(user)s %(project)s] %(message)s"
)
DATE_FORMAT = "%Y-%m-%d %H:%M:%S"
# Libraries that are chatty at INFO/DEBUG about their own internals.
_QUIET = ("alembic", "sqlalchemy", "urllib3", "stevedore")


def setup(conf: cfg.ConfigOpts) -> logging.Handler:
    """Route the root logger to stderr or [DEFAULT] log_file; DEBUG with [DEFAULT] debug."""
    handler: logging.Handler
    if conf.log_file:
        handler = logging.FileHandler(conf.log_file, encoding="utf-8")
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(FORMAT, DATE_FORMAT))
    # On the handler, not a logger: logger filters skip records of child loggers.
    handler.addFilter(RequestLogFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if conf.debug else logging.INFO)
    for name in _QUIET:
        logging.getLogger(name).setLevel(logging.WARNING)
    return handler


def stacks_on_sigusr2() -> None:
    """SIGUSR2 writes every thread's stack to stderr (a service's log under the join's
    supervisor and the tests): what a hung service waits on, as Nova's report on SIGUSR2."""
    faulthandler.register(signal.SIGUSR2, all_threads=True)
