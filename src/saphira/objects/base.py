"""Versioned dataclasses and their JSON-safe primitive form.

A primitive is ``{"saphira_object.name", ".version", ".data"}``, as Nova's
oslo.versionedobjects envelope is. Versions are "major.minor": a reader
accepts any minor of its major (unknown fields from a newer minor are dropped,
missing ones take their defaults), so services can be upgraded one at a time;
a different major is refused loudly. Conversion follows the type hints, so a
new field needs no serialisation code.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import types
import typing
from typing import Any, ClassVar, Self

NAME, VERSION, DATA = "saphira_object.name", "saphira_object.version", "saphira_object.data"

_REGISTRY: dict[str, type[SaphiraObject]] = {}


class IncompatibleVersion(ValueError):
    pass


def registry() -> dict[str, type[SaphiraObject]]:
    return dict(_REGISTRY)


class SaphiraObject:
    """Base of every object; subclasses are ``@dataclasses.dataclass``es."""

    VERSION: ClassVar[str] = "1.0"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _REGISTRY[cls.__name__] = cls

    def to_primitive(self) -> dict[str, Any]:
        data = {
            field.name: _dump(getattr(self, field.name))
            for field in dataclasses.fields(self)  # type: ignore[arg-type]
        }
        return {NAME: type(self).__name__, VERSION: self.VERSION, DATA: data}

    @classmethod
    def from_primitive(cls, primitive: dict[str, Any]) -> Self:
        if primitive.get(NAME) != cls.__name__:
            raise ValueError(f"expected a {cls.__name__} primitive, got {primitive.get(NAME)!r}")
        _check_version(cls, str(primitive.get(VERSION)))
        hints = _init_hints(cls)
        data = primitive[DATA]
        kwargs = {name: _load(hints[name], value) for name, value in data.items() if name in hints}
        return cls(**kwargs)


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _init_hints(cls: type[Any]) -> dict[str, Any]:
    """The resolved type of each init field; resolving hints is slow, classes never change."""
    hints = _HINTS.get(cls)
    if hints is None:
        resolved = typing.get_type_hints(cls)
        hints = {f.name: resolved[f.name] for f in dataclasses.fields(cls) if f.init}
        _HINTS[cls] = hints
    return hints


def from_primitive(primitive: dict[str, Any]) -> SaphiraObject:
    """Any registered object, by the name its primitive carries."""
    cls = _REGISTRY.get(str(primitive.get(NAME)))
    if cls is None:
        raise ValueError(f"unknown object {primitive.get(NAME)!r}")
    return cls.from_primitive(primitive)


def _check_version(cls: type[SaphiraObject], version: str) -> None:
    if version.split(".")[0] != cls.VERSION.split(".")[0]:
        raise IncompatibleVersion(f"{cls.__name__} {version} cannot be read as {cls.VERSION}")


def _dump(value: Any) -> Any:
    if isinstance(value, SaphiraObject):
        return value.to_primitive()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [_dump(item) for item in value]
    if isinstance(value, dict):
        return {key: _dump(item) for key, item in value.items()}
    return value


def _load(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        concrete = [arg for arg in args if arg is not type(None)]
        return _load(concrete[0], value) if len(concrete) == 1 else value
    if origin is list:
        return [_load(args[0], item) for item in value]
    if origin is tuple:
        return tuple(_load(args[0], item) for item in value)
    if origin is dict:
        return {key: _load(args[1], item) for key, item in value.items()}
    if isinstance(hint, type):
        if issubclass(hint, SaphiraObject):
            return hint.from_primitive(value)
        if issubclass(hint, enum.Enum):
            return hint(value)
        if hint is dt.datetime:
            return dt.datetime.fromisoformat(value)
    return value
