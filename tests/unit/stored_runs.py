"""A run's events as they would be stored, with their times, decided on as the supervisor would: the
pure supervisor tests (decide, run endings) build runs with it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from contracts import Event, new_envelope
from services.supervisor.decide import Decision, RetryPolicy, decide
from services.supervisor.ending import DEFAULT_LIMITS, RunLimits
from services.supervisor.run import RunState, fold

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


class StoredRun:
    def __init__(self, policy: RetryPolicy | None = None, limits: RunLimits = DEFAULT_LIMITS) -> None:
        self.policy, self.limits = policy or RetryPolicy(), limits
        self.envelopes: list = []
        self.now = T0

    def add(self, *events: Event, after_s: float = 0.0) -> StoredRun:
        self.now += timedelta(seconds=after_s)
        for e in events:
            self.envelopes.append(
                new_envelope(e, stream_id="run-r", correlation_id="r", session_id="s", occurred_at=self.now)
            )
        return self

    def state(self) -> RunState:
        return fold("r", self.envelopes)

    def decide(self, after_s: float = 0.0) -> Decision:
        self.now += timedelta(seconds=after_s)
        decision = decide(self.state(), self.now, self.policy, self.limits)
        self.add(*decision.events)
        return decision
