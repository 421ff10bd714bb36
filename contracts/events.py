"""The base of every event payload."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict


class Event(BaseModel):
    """A business fact, past tense, frozen.

    `event_type` names it on the wire and in the store; `schema_version` is a
    field as well as a class constant so a stored payload says which shape it has.
    `routing_field` names a payload field whose value becomes the last subject
    token (StepStarted is routed by team, so each team filters its own work).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    event_type: ClassVar[str]
    routing_field: ClassVar[str | None] = None
    producer: ClassVar[str]

    schema_version: int

    def routing_token(self) -> str | None:
        return str(getattr(self, self.routing_field)) if self.routing_field else None
