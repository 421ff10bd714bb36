"""NATS subjects carry the schema version, so a v2 producer never breaks a v1 consumer.

    {namespace}.v{version}.{EventType}[.{routing token}]     e.g. jipsa.v1.StepStarted.search

The namespace is `jipsa` in production; tests use their own so they never share
a stream with anything else on the same server.
"""

from __future__ import annotations

from contracts.envelope import Envelope
from contracts.registry import REGISTRY

DEFAULT_NAMESPACE = "jipsa"


def subject_for(envelope: Envelope, namespace: str = DEFAULT_NAMESPACE) -> str:
    base = f"{namespace}.v{envelope.schema_version}.{envelope.event_type}"
    model = REGISTRY.model(envelope.event_type, envelope.schema_version)
    if model.routing_field is None:
        return base
    return f"{base}.{envelope.data[model.routing_field]}"


def filter_for(event_type: str, namespace: str = DEFAULT_NAMESPACE, routing: str | None = None) -> str:
    """A consumer filter matching every version of one event type (older ones are upcast on read)."""
    model = REGISTRY.model(event_type, REGISTRY.latest_version(event_type))
    if model.routing_field is None:
        return f"{namespace}.*.{event_type}"
    return f"{namespace}.*.{event_type}.{routing or '*'}"


def stream_subjects(namespace: str = DEFAULT_NAMESPACE) -> list[str]:
    return [f"{namespace}.>"]
