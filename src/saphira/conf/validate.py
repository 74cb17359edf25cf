"""Check every value before anything starts.

oslo.config converts values lazily, on first access; a typo in a port would
otherwise surface as a traceback deep inside a service. Touching every option
once turns it into one line naming the file, the section and the key.
"""

from __future__ import annotations

import re

from oslo_config import cfg

from saphira.conf.opts import list_opts
from saphira.exception import ConfigError

# oslo.config's message is the only place the failing file is named:
# "Value for option X from LocationInfo(..., detail='/etc/f.conf') is not valid: why"
_MESSAGE = re.compile(r"detail='(?P<file>[^']*)'\) is not valid: (?P<why>.*)", re.S)


def _check(conf: cfg.ConfigOpts, name: str, group: str | None) -> None:
    try:
        conf[group][name] if group else conf[name]
    except (cfg.Error, ValueError) as exc:
        text = str(exc)
        match = _MESSAGE.search(text)
        where, why = (match["file"], match["why"]) if match else ("<command line>", text)
        why = why.strip().splitlines()[0]
        raise ConfigError(f"{where}: [{group or 'DEFAULT'}] {name}: {why}") from None


def validate(conf: cfg.ConfigOpts) -> None:
    for group, group_opts in list_opts():
        for opt in group_opts:
            _check(conf, opt.dest, group.name if group else None)
