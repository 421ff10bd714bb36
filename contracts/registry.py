"""Which payload model reads which (event_type, schema_version), and how old versions are upcast.

Stored events are never rewritten: an old version is read by applying pure
upcast functions, one version step at a time, until it is the current shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from contracts.events import Event

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class UnknownEventType(ValueError):
    """An event type or version this build does not know (poison, not transient)."""


class Registry:
    def __init__(self) -> None:
        self._models: dict[tuple[str, int], type[Event]] = {}
        self._upcasters: dict[tuple[str, int], Upcaster] = {}
        self._latest: dict[str, int] = {}  # kept as models register: every read of an event asks it

    def event(self, model: type[Event]) -> type[Event]:
        """Class decorator: register a payload model under its type and version."""
        version = model.model_fields["schema_version"].default
        key = (model.event_type, version)
        if key in self._models:
            raise ValueError(f"{key} registered twice")
        self._models[key] = model
        self._latest[model.event_type] = max(version, self._latest.get(model.event_type, version))
        return model

    def upcaster(self, event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        def register(fn: Upcaster) -> Upcaster:
            self._upcasters[(event_type, from_version)] = fn
            return fn

        return register

    def latest_version(self, event_type: str) -> int:
        try:
            return self._latest[event_type]
        except KeyError:
            raise UnknownEventType(f"unknown event type {event_type!r}") from None

    def model(self, event_type: str, version: int) -> type[Event]:
        try:
            return self._models[(event_type, version)]
        except KeyError:
            raise UnknownEventType(f"unknown event {event_type!r} v{version}") from None

    def models(self) -> list[type[Event]]:
        return sorted(
            self._models.values(), key=lambda m: (m.event_type, m.model_fields["schema_version"].default)
        )

    def current(self) -> list[type[Event]]:
        return [
            m
            for m in self.models()
            if m.model_fields["schema_version"].default == self.latest_version(m.event_type)
        ]

    def parse(self, event_type: str, version: int, data: dict[str, Any]) -> Event:
        """Read a payload of any known version as the current model (upcasting on read)."""
        latest = self.latest_version(event_type)
        self.model(event_type, version)  # an unknown version is refused, not guessed
        while version < latest:
            data = {**self._upcasters[(event_type, version)](dict(data)), "schema_version": version + 1}
            version += 1
        return self.model(event_type, latest).model_validate(data)


REGISTRY = Registry()
