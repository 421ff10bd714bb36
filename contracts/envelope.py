"""The one envelope every event travels and is stored in.

Ids, stream position, time, correlation (the run), causation (the event that
caused this one) and W3C trace context live here, apart from the payload, so the
store, the publisher and tracing treat every event alike.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid4

from pydantic import BaseModel, ConfigDict, Field

from contracts.events import Event


class TraceContext(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    traceparent: str | None = None
    tracestate: str | None = None


class Envelope(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    event_id: UUID
    event_type: str
    schema_version: int = Field(ge=1)
    stream_id: str = Field(min_length=1, max_length=200)
    occurred_at: datetime
    correlation_id: str = Field(min_length=1, max_length=100)
    causation_id: UUID | None = None
    session_id: str | None = Field(default=None, max_length=100)
    # The person whose session it is, if any: what Jipsa remembers of them is folded from these.
    person_id: str | None = Field(default=None, max_length=100)
    producer: str = Field(min_length=1, max_length=50)
    trace: TraceContext = TraceContext()
    data: dict[str, Any]


def run_stream(run_id: str) -> str:
    """The stream every event of a run is appended to: the supervisor decides on it as one aggregate."""
    return f"run-{run_id}"


def new_envelope(
    event: Event,
    *,
    stream_id: str,
    correlation_id: str,
    causation: Envelope | None = None,
    session_id: str | None = None,
    person_id: str | None = None,
    event_id: UUID | None = None,
    occurred_at: datetime | None = None,
) -> Envelope:
    """Wrap a payload. A caused event inherits the session, person and trace of its cause."""
    return Envelope(
        event_id=event_id or uuid4(),
        event_type=event.event_type,
        schema_version=event.schema_version,
        stream_id=stream_id,
        occurred_at=occurred_at or datetime.now(UTC),
        correlation_id=correlation_id,
        causation_id=causation.event_id if causation else None,
        session_id=session_id if session_id is not None else (causation.session_id if causation else None),
        person_id=person_id if person_id is not None else (causation.person_id if causation else None),
        producer=event.producer,
        trace=causation.trace if causation else TraceContext(),
        data=event.model_dump(mode="json"),
    )


def caused_by(event: Event, cause: Envelope) -> Envelope:
    """Wrap a payload that answers `cause`, in the same stream and run (a handler's reply)."""
    return new_envelope(
        event, stream_id=cause.stream_id, correlation_id=cause.correlation_id, causation=cause
    )
