"""One run's events recorded at fixed times and ids, as a store holds them: the contract tests of wire
versions record the same run by each version and fold both."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid5

from contracts import Envelope, Event, new_envelope
from services.platform.eventstore import Recorded
from services.projector.folding import Logged

T0 = datetime(2025, 10, 8, 9, 0, tzinfo=UTC)


def event_id_at(position: int) -> UUID:
    """Ids by position: the recordings of one run by different wire versions hold the same events."""
    return uuid5(UUID(int=0), f"r1/{position}")


class Recording:
    """Run r1's events, each a second after the one before, in the session and of the person given."""

    def __init__(self, session_id: str | None = None, person_id: str | None = None) -> None:
        self.records: list[Recorded] = []
        self.session_id, self.person_id = session_id, person_id

    def add(self, event: Event) -> Recording:
        position = len(self.records) + 1
        at = T0 + timedelta(seconds=position)
        envelope = new_envelope(
            event,
            stream_id="run-r1",
            correlation_id="r1",
            occurred_at=at,
            session_id=self.session_id,
            person_id=self.person_id,
            event_id=event_id_at(position),
        )
        self.records.append(Recorded(position, position, at, envelope))
        return self

    @property
    def envelopes(self) -> list[Envelope]:
        return [r.envelope for r in self.records]

    @property
    def logged(self) -> list[Logged]:
        return [Logged.of(r) for r in self.records]
