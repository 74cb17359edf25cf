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
from collections.abc import Callable
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
        data = {name: _dump(getattr(self, name)) for name in _field_names(type(self))}
        return {NAME: type(self).__name__, VERSION: self.VERSION, DATA: data}

    @classmethod
    def from_primitive(cls, primitive: dict[str, Any]) -> Self:
        if primitive.get(NAME) != cls.__name__:
            raise ValueError(f"expected a {cls.__name__} primitive, got {primitive.get(NAME)!r}")
        _check_version(cls, str(primitive.get(VERSION)))
        loaders = _init_loaders(cls)
        kwargs: dict[str, Any] = {}
        for name, value in primitive[DATA].items():
            if name in loaders:
                load = loaders[name]
                kwargs[name] = value if load is None or value is None else load(value)
        return cls(**kwargs)


Loader = Callable[[Any], Any]
# Per class, computed once (classes never change): resolving hints and walking
# dataclass fields is slow, and every message over the bus converts objects.
_NAMES: dict[type[Any], tuple[str, ...]] = {}
_INIT_LOADERS: dict[type[Any], dict[str, Loader | None]] = {}
_LOADERS: dict[Any, Loader | None] = {}


def _field_names(cls: type[Any]) -> tuple[str, ...]:
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(field.name for field in dataclasses.fields(cls))
    return names


def _init_loaders(cls: type[Any]) -> dict[str, Loader | None]:
    """The loader of each init field (None: the value is taken as it is), from the
    resolved type hints."""
    loaders = _INIT_LOADERS.get(cls)
    if loaders is None:
        resolved = typing.get_type_hints(cls)
        loaders = {f.name: _loader(resolved[f.name]) for f in dataclasses.fields(cls) if f.init}
        _INIT_LOADERS[cls] = loaders
    return loaders


def from_primitive(primitive: dict[str, Any]) -> SaphiraObject:
    """Any registered object, by the name its primitive carries."""
    cls = _REGISTRY.get(str(primitive.get(NAME)))
    if cls is None:
        raise ValueError(f"unknown object {primitive.get(NAME)!r}")
    return cls.from_primitive(primitive)


def _check_version(cls: type[SaphiraObject], version: str) -> None:
    if version.split(".")[0] != cls.VERSION.split(".")[0]:
        raise IncompatibleVersion(f"{cls.__name__} {version} cannot be read as {cls.VERSION}")


#: The plain values that are their own primitive (a fast path of every dump).
ATOMS = frozenset({str, int, float, bool, type(None)})


def _dump(value: Any) -> Any:
    if type(value) in ATOMS:
        return value
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
    """``value`` (a primitive) as ``hint`` says: objects, enums and datetimes rebuilt,
    in containers too; None stays None, anything else is taken as it is."""
    load = _loader(hint)
    return value if load is None or value is None else load(value)


def _loader(hint: Any) -> Loader | None:
    """The function that loads a (not None) value of ``hint``, made once per hint."""
    try:
        return _LOADERS[hint]
    except KeyError:
        load = _LOADERS[hint] = _compile(hint)
        return load
    except TypeError:  # an unhashable hint: not kept
        return _compile(hint)


def _compile(hint: Any) -> Loader | None:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        concrete = [arg for arg in args if arg is not type(None)]
        return _loader(concrete[0]) if len(concrete) == 1 else None
    if origin in (list, tuple, dict):
        return _container(origin, _loader(args[1] if origin is dict else args[0]))
    if isinstance(hint, type):
        if issubclass(hint, SaphiraObject):
            return hint.from_primitive
        if issubclass(hint, enum.Enum):
            return hint
        if hint is dt.datetime:
            return dt.datetime.fromisoformat
    return None


def _container(origin: type[Any], item: Loader | None) -> Loader:
    """A list, tuple or dict loader: a new container, its items loaded with ``item``."""
    if item is None:
        return dict if origin is dict else origin
    each: Loader = item

    def one(value: Any) -> Any:
        return None if value is None else each(value)

    if origin is dict:
        return lambda value: {key: one(v) for key, v in value.items()}
    if origin is tuple:
        return lambda value: tuple(one(v) for v in value)
    return lambda value: [one(v) for v in value]
