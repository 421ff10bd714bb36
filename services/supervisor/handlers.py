"""The supervisor's side effects around its pure decisions: read the run, decide, record, set timers.

Every trigger (an event of the run arriving on the bus, a deadline passing) runs the same
`reconcile`, inside the transaction the consumer or the timer loop holds:

1. read the run's stream in that transaction and fold it (on from where this replica last folded it);
2. `decide` with the current time;
3. compose the response if every step has settled (the one slow part: an LLM call when one is
   configured, so it happens only once the decision to answer is certain);
4. rewrite the run's timers (the deadlines it waits on) in the same transaction;
5. return the events, to be appended expecting the version read in 1.

If another replica (or another trigger of this one) recorded a decision for the run in the
meantime, the append fails with ConcurrencyError, the transaction rolls back (timers and
inbox claim included), and the consumer decides again from the fresh stream.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from psycopg import AsyncConnection

from contracts import Envelope, Event, new_envelope, run_stream
from contracts.consumers import consumed_by
from services.platform.consumer import HandlerContext, Outcome, Subscription
from services.platform.eventstore import read_stream_in
from services.platform.recent import Recent
from services.supervisor.decide import RetryPolicy, decide
from services.supervisor.ending import DEFAULT_LIMITS, RunLimits
from services.supervisor.run import RunState, fold

CONSUMER_PREFIX = (
    "supervisor-"  # every durable consumer of the supervisor (the watchdog reads their dead letters)
)
Clock = Callable[[], datetime]
Respond = Callable[[RunState], Awaitable[Sequence[Event]]]  # ResponseReady, plus any LlmCallRecorded

# The events after which a run may need a decision (the published list of who consumes what); the
# supervisor ignores the rest.
TRIGGERS = consumed_by("supervisor")


@dataclass(frozen=True)
class Folded:
    """A run folded up to its stream's version `state.version`, and the last event of that fold."""

    state: RunState
    last: Envelope | None


@dataclass(frozen=True)
class Supervisor:
    respond: Respond
    policy: RetryPolicy = RetryPolicy()
    limits: RunLimits = DEFAULT_LIMITS
    clock: Clock = lambda: datetime.now(UTC)  # noqa: E731  (a port: tests hand in their own)
    # Each run as last folded: a trigger reads only the events after it. A fold of the stream's first N
    # events is the same whoever appended them and whether the decision made from it was kept or lost its
    # race, so it holds for every later trigger of the run, on this replica or after another's appends.
    folded: Recent[str, Folded] = field(default_factory=Recent, compare=False, repr=False)

    def subscriptions(self) -> list[Subscription]:
        return [Subscription(f"{CONSUMER_PREFIX}{t}", t, self._on_event) for t in TRIGGERS]

    async def _on_event(self, ctx: HandlerContext) -> Outcome:
        return await self.reconcile(ctx.conn, ctx.envelope.correlation_id, cause=ctx.envelope)

    async def reconcile(self, conn: AsyncConnection, run_id: str, cause: Envelope | None = None) -> Outcome:
        before = self.folded.get(run_id) or Folded(RunState(run_id=run_id), None)
        stored = await read_stream_in(conn, run_stream(run_id), before.state.version)
        state = fold(run_id, (r.envelope for r in stored), before.state)
        last_stored = stored[-1].envelope if stored else before.last
        decision = decide(state, self.clock(), self.policy, self.limits)
        if decision.respond or state.outcome is not None:
            self.folded.drop(run_id)  # it ends: a later event (a team's late answer) is rare
        else:
            self.folded.put(run_id, Folded(state, last_stored))
        events = list(decision.events)
        if decision.respond:
            events.extend(await self.respond(decision.state))
        await set_timers(conn, run_id, decision.wake_at if not decision.respond else None)
        if not events:
            return Outcome()
        last = cause or last_stored
        recorded = [_envelope(e, run_id, state, last) for e in events]
        return Outcome(recorded, expected_version=state.version)


def _envelope(event: Event, run_id: str, state: RunState, cause: Envelope | None) -> Envelope:
    return new_envelope(
        event,
        stream_id=run_stream(run_id),
        correlation_id=run_id,
        causation=cause,
        session_id=state.session_id,
    )


async def set_timers(conn: AsyncConnection, run_id: str, wake_at: datetime | None) -> None:
    """One wake-up per run: the earliest deadline it waits on (the decision recomputes the rest). An
    upsert, not delete-then-insert: two triggers of one run deciding at once both find no row to delete,
    and the second insert would fail on the key instead of waiting to lose the decision's race."""
    if wake_at is None:
        await conn.execute("DELETE FROM supervisor_timers WHERE run_id = %s", (run_id,))
        return
    await conn.execute(
        "INSERT INTO supervisor_timers (run_id, due_at) VALUES (%s, %s)"
        " ON CONFLICT (run_id) DO UPDATE SET due_at = EXCLUDED.due_at",
        (run_id, wake_at),
    )
