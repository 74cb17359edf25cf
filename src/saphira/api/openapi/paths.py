"""Werkzeug rules as OpenAPI path templates and path parameters."""

from __future__ import annotations

import re
from dataclasses import dataclass

from werkzeug.routing import Rule

SKIPPED_METHODS = frozenset({"HEAD", "OPTIONS"})  # werkzeug adds HEAD to every GET
_VARIABLE = re.compile(r"<(?:(?P<converter>\w+)(?:\((?P<args>[^)]*)\))?:)?(?P<name>\w+)>")


@dataclass(frozen=True)
class PathParam:
    name: str
    choices: tuple[str, ...] = ()  # werkzeug's any(a, b): only these
    slashes: bool = False  # werkzeug's path: may hold a slash


@dataclass(frozen=True)
class Template:
    path: str  # /v2.1/servers/{server_id}
    params: tuple[PathParam, ...]


def _choices(args: str | None) -> tuple[str, ...]:
    return tuple(part.strip().strip("'\"") for part in (args or "").split(",") if part.strip())


def template(rule: Rule) -> Template:
    """The OpenAPI path of a rule: ``<x>`` becomes ``{x}``; a one-choice ``any`` a literal."""
    params: list[PathParam] = []

    def replace(match: re.Match[str]) -> str:
        converter, name = match["converter"], match["name"]
        if converter == "any":
            choices = _choices(match["args"])
            if len(choices) == 1:
                return choices[0]
            params.append(PathParam(name, choices))
        else:
            params.append(PathParam(name, slashes=converter == "path"))
        return "{" + name + "}"

    return Template(_VARIABLE.sub(replace, rule.rule), tuple(params))


def methods(rule: Rule) -> list[str]:
    return sorted((rule.methods or set()) - SKIPPED_METHODS)
