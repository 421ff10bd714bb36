"""Jipsa's event contracts: one envelope, versioned payloads, subjects.

Every service imports this package and nothing else of the project's domain.
Importing it registers every event type, so `registry.parse` knows them all.
"""

from contracts import gateway, people, planner, supervisor, teams, telemetry  # noqa: F401  (registration)
from contracts.envelope import Envelope, TraceContext, caused_by, new_envelope, run_stream
from contracts.events import Event
from contracts.registry import REGISTRY, UnknownEventType
from contracts.subjects import subject_for

__all__ = [
    "Envelope",
    "Event",
    "REGISTRY",
    "TraceContext",
    "UnknownEventType",
    "caused_by",
    "new_envelope",
    "run_stream",
    "subject_for",
]
