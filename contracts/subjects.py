"""NATS subjects carry the schema version, so a v2 producer never breaks a v1 consumer.

    {namespace}.v{version}.{EventType}[.{routing token}]     e.g. jipsa.v1.StepStarted.search

The namespace is `jipsa` in production; tests use their own so they never share
a stream with anything else on the same server.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contracts.envelope import Envelope
from contracts.registry import REGISTRY

DEFAULT_NAMESPACE = "jipsa"


def subject_for(envelope: Envelope, namespace: str = DEFAULT_NAMESPACE) -> str:
    return subject_of(envelope.event_type, envelope.schema_version, envelope.data, namespace)


def subject_of(event_type: str, schema_version: int, data: Mapping[str, Any], namespace: str) -> str:
    """The subject of an event of this type and version whose payload is `data` (only its routing
    field is read): the one place the subject's format lives."""
    base = f"{namespace}.v{schema_version}.{event_type}"
    model = REGISTRY.model(event_type, schema_version)
    if model.routing_field is None:
        return base
    return f"{base}.{data[model.routing_field]}"


def filter_for(event_type: str, namespace: str = DEFAULT_NAMESPACE, routing: str | None = None) -> str:
    """A consumer filter matching every version of one event type (older ones are upcast on read)."""
    model = REGISTRY.model(event_type, REGISTRY.latest_version(event_type))
    if model.routing_field is None:
        return f"{namespace}.*.{event_type}"
    return f"{namespace}.*.{event_type}.{routing or '*'}"


def stream_subjects(namespace: str = DEFAULT_NAMESPACE) -> list[str]:
    return [f"{namespace}.>"]
