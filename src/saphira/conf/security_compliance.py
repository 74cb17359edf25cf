"""[security_compliance]: Keystone's account lockout, on by default here.

Keystone leaves ``lockout_failure_attempts`` unset (no lockout) and locks for
1800 s when it is set; Saphira throttles password guessing out of the box, so
its defaults are 10 failures, then 60 s locked: the eleventh wrong password in
a minute is refused before any hash is computed.
"""

from __future__ import annotations

from oslo_config import cfg

group = cfg.OptGroup(
    "security_compliance", help="Keystone's security compliance options (account lockout)."
)

opts: list[cfg.Opt] = [
    cfg.IntOpt(
        "lockout_failure_attempts",
        default=10,
        min=0,
        help="The maximum number of times in a row that a user can fail to "
        "authenticate with a password before the account is locked for "
        "lockout_duration seconds (Keystone's option). A locked user is refused "
        "with 401 'The account is locked for user: <id>.' even with the right "
        "password, without the password being checked; a successful login "
        "resets the count. Keystone's default is unset (no lockout); Saphira's "
        "is 10, so the eleventh wrong password in a minute is refused. 0 or "
        "empty disables the lockout.",
    ),
    cfg.IntOpt(
        "lockout_duration",
        default=60,
        min=1,
        help="Seconds a user stays locked after lockout_failure_attempts "
        "failures in a row, counted from the last failure (Keystone's option; "
        "Keystone's default is 1800). Empty keeps a locked user locked until "
        "an administrator sets the user's enabled attribute to true, which "
        "resets the count, as in Keystone.",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [(group, opts)]
