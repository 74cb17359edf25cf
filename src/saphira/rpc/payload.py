"""Versioned payloads: registered dataclasses cross the bus as tagged dicts.

A small stand-in for oslo.versionedobjects: each payload class carries a
``VERSION`` "major.minor". A receiver accepts the same major and any minor
(fields it does not know are dropped, missing ones take their defaults), so
a newer sender may add optional fields without breaking an older receiver;
a different major is refused.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable
from typing import Any, TypeVar

from saphira.exception import ValidationError

NAME, VERSION, DATA, DATETIME = "saphira.name", "saphira.version", "saphira.data", "saphira.dt"


P = TypeVar("P", bound=type[Any])
_registry: dict[str, type[Any]] = {}
_loaders: dict[str, Callable[[dict[str, Any]], Any]] = {}


def register_loader(marker: str, loader: Callable[[dict[str, Any]], Any]) -> None:
    """Carry a higher layer's own versioned objects (e.g. saphira.objects).

    Such objects are sent through their ``to_primitive()`` method; a received
    dict holding ``marker`` (their envelope's name key) goes to ``loader``.
    saphira.rpc cannot import those layers, so they register themselves.
    """
    _loaders[marker] = loader


def register(cls: P) -> P:
    """Class decorator: make a dataclass with a VERSION class attribute sendable."""
    if not dataclasses.is_dataclass(cls) or not isinstance(getattr(cls, "VERSION", None), str):
        raise TypeError(f"{cls.__name__} must be a dataclass with a VERSION string")
    existing = _registry.setdefault(cls.__name__, cls)
    if existing is not cls:
        raise TypeError(f"payload name {cls.__name__} is already registered")
    return cls


def to_primitive(value: Any) -> Any:
    """Plain JSON-able data; registered payloads become tagged dicts."""
    if not isinstance(value, type) and callable(getattr(value, "to_primitive", None)):
        return value.to_primitive()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        if _registry.get(cls.__name__) is not cls:
            raise TypeError(f"{cls.__name__} is not a registered payload")
        data = {f.name: to_primitive(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {NAME: cls.__name__, VERSION: cls.VERSION, DATA: data}
    if isinstance(value, datetime.datetime):
        return {DATETIME: value.isoformat()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_primitive(item) for item in value]
    if isinstance(value, dict):
        return {key: to_primitive(item) for key, item in value.items()}
    return value


def _major(version: str) -> str:
    return version.split(".", 1)[0]


def _load(tagged: dict[str, Any]) -> Any:
    name, version = tagged[NAME], str(tagged[VERSION])
    cls = _registry.get(name)
    if cls is None:
        raise ValidationError(detail=f"unknown payload {name} {version}")
    if _major(version) != _major(cls.VERSION):
        raise ValidationError(detail=f"payload {name} {version} is incompatible with {cls.VERSION}")
    known = {f.name for f in dataclasses.fields(cls) if f.init}
    fields = {k: from_primitive(v) for k, v in tagged[DATA].items() if k in known}
    return cls(**fields)


def from_primitive(value: Any) -> Any:
    """The inverse of to_primitive (JSON lists stay lists)."""
    if isinstance(value, dict):
        if NAME in value and VERSION in value and DATA in value:
            return _load(value)
        for marker, loader in _loaders.items():
            if marker in value:
                return loader(value)
        if set(value) == {DATETIME}:
            return datetime.datetime.fromisoformat(value[DATETIME])
        return {key: from_primitive(item) for key, item in value.items()}
    if isinstance(value, list):
        return [from_primitive(item) for item in value]
    return value
