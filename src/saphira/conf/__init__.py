"""Configuration: nova.conf-style INI files read with oslo.config.

Every option is declared once, in the module of its group; ``opts.list_opts``
feeds both registration and the sample-file generator. A ConfigOpts is built
per cloud (``make_conf``) rather than held globally, so tests can run several
clouds in one process.
"""

from __future__ import annotations

from collections.abc import Sequence

from oslo_config import cfg

from saphira.conf import opts
from saphira.conf.validate import validate
from saphira.exception import ConfigError


def make_conf() -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    for group, group_opts in opts.list_opts():
        if group is not None:
            # A fresh group per conf: oslo.config's register_group copies the
            # group shallowly, so a shared one would share overrides between clouds.
            group = cfg.OptGroup(group.name, title=group.title, help=group.help)
            conf.register_group(group)
        conf.register_opts(group_opts, group=group)
    return conf


def load(
    argv: Sequence[str] = (),
    *,
    default_config_files: Sequence[str] = (),
    overrides: dict[str, dict[str, object]] | None = None,
    prog: str = "saphira",
) -> cfg.ConfigOpts:
    """Parse the command line and config files, apply overrides, validate.

    Raises ConfigError naming file, section and key for the first bad value,
    so nothing starts on a configuration that would fail later.
    """
    conf = make_conf()
    try:
        conf(
            list(argv),
            project="saphira",
            prog=prog,
            default_config_files=list(default_config_files),
            validate_default_values=True,
        )
    except cfg.ConfigFilesNotFoundError as exc:
        raise ConfigError(f"config file not found: {', '.join(exc.config_files)}") from None
    except cfg.ConfigFileParseError as exc:
        raise ConfigError(f"{exc.config_file}: {exc.msg}") from None
    except cfg.ConfigFileValueError:
        validate(conf)  # names the file, section and key of the bad value
        raise
    for group_name, values in (overrides or {}).items():
        for key, value in values.items():
            conf.set_override(key, value, group=None if group_name == "DEFAULT" else group_name)
    validate(conf)
    return conf


__all__ = ["load", "make_conf", "validate"]
