"""A caller's regular expression (Nova's regex filters, ``name`` today), run in linear time.

Nova searches these filters with the database's REGEXP, or Python's ``re`` on
SQLite. Python's ``re`` backtracks: ``(a|aa)*$`` against forty ``a`` and a
``!`` runs for minutes inside one C call that holds the interpreter lock, so
every thread of the process stalls (in the all-in-one: every service and
heartbeat). RE2 (google-re2, a wheel on PyPI; the standard library has no
linear-time engine) never backtracks: a search costs at most the pattern's
size times the text's length, and compiling is bounded by ``max_mem``. The few
things RE2 cannot run (backreferences, lookarounds) are refused with a 400
naming why, as is any pattern that does not compile.
"""

from __future__ import annotations

from collections.abc import Callable

import re2

from saphira.exception import BadRequest

MAX_MEM = 8 << 20  # bytes RE2 may use for one compiled pattern


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # RE2 would print every refused pattern on stderr
    options.max_mem = MAX_MEM
    return options


_OPTIONS = _options()


def search(name: str, pattern: str) -> Callable[[str | None], bool]:
    """A test "does ``pattern`` occur in the value" (re.search's meaning); BadRequest
    naming the filter when RE2 refuses the pattern."""
    try:
        compiled = re2.compile(pattern, _OPTIONS)
    except re2.error as error:
        why = error.args[0] if error.args else ""
        text = why.decode("utf-8", "replace") if isinstance(why, bytes) else str(why)
        raise BadRequest(f"Invalid {name} filter: {pattern} ({text})") from None

    def found(value: str | None) -> bool:
        return value is not None and compiled.search(value) is not None

    return found
