"""Events of a person (a pseudonymous identity that owns sessions), appended to the person's stream
`person-{person_id}`, whose correlation id is the stream's name: they belong to no run.

What Jipsa remembers of a person is a fold of their runs' events (services/housing/memory.py); these
change it: an item forgotten, remembering turned off or on, and everything forgotten. None of them
carries what was forgotten: an item is named by an id made of log positions.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from contracts.events import Event
from contracts.registry import REGISTRY

PersonId = str


def person_stream(person_id: str) -> str:
    """The stream (and correlation id) of a person's own events."""
    return f"person-{person_id}"


@REGISTRY.event
class MemoryItemForgotten(Event):
    """The person asked Jipsa to forget one remembered item."""

    event_type = "MemoryItemForgotten"
    producer = "gateway"
    schema_version: Literal[1] = 1

    person_id: str = Field(min_length=1, max_length=100)
    item_id: str = Field(min_length=1, max_length=100)


@REGISTRY.event
class RememberingChanged(Event):
    """The person turned remembering off (nothing new is remembered, nothing remembered is used) or on."""

    event_type = "RememberingChanged"
    producer = "gateway"
    schema_version: Literal[1] = 1

    person_id: str = Field(min_length=1, max_length=100)
    remembering: bool


@REGISTRY.event
class PersonForgotten(Event):
    """모두 잊기: everything remembered is dropped and never used again. The log keeps every event."""

    event_type = "PersonForgotten"
    producer = "gateway"
    schema_version: Literal[1] = 1

    person_id: str = Field(min_length=1, max_length=100)
