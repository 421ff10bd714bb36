"""How a team service answers the steps dispatched to it: StepStarted{team} in, StepCompleted or
StepFailed out, with the tool decisions and LLM calls the work made, all in one commit.

A team provides one async function `work(StepWork) -> StepOutput`; this module turns it into a
consumer subscription. The StepStarted names the StepCompleted events that hold the results of the
steps it depends on; they are read from the store before the work, with the work in the consumer's
`prepare` (not in the transaction the answer is recorded in, which holds a connection: a read is one
statement on a connection given back at once), and handed to it in `StepWork.dependency_results`.

Error policy for a step (the consumer's own policy sits under it):
- the work raises `StepFailure`: recorded as StepFailed with its code and `retryable` flag; the
  supervisor owns retries, so the team never retries a step itself;
- a result the step depends on is not in the store as the StepCompleted the StepStarted names:
  StepFailed `dependency_unreadable`, not retryable (the supervisor names only events it folded from
  the store, so this is a bug or a damaged log, and another attempt would read the same);
- the work runs past the step's `timeout_s`: StepFailed `timeout`, retryable (the supervisor's own
  deadline is the backstop if this process dies instead);
- Postgres or the network fails under the work (`OperationalError`, `OSError`): raised, so the
  consumer redelivers the message with backoff, and nothing is recorded twice (inbox);
- any other exception is a bug in the team: StepFailed `internal_error`, not retryable, logged
  with its traceback, so the run answers with what it has instead of waiting for a timeout.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import cast
from uuid import UUID

import psycopg
from opentelemetry.trace import Span

from contracts import Envelope, Event, caused_by
from contracts.entities import QueryEntities
from contracts.results import StepResult
from contracts.steps import StepInputs
from contracts.supervisor import StepStarted
from contracts.teams import StepCompleted, StepFailed
from contracts.telemetry import LlmCallRecorded, ToolDecisionRecorded
from contracts.values import StepError, StepFocus, Team
from services.platform import telemetry
from services.platform.consumer import HandlerContext, Outcome, Subscription
from services.platform.eventstore import EventStore, Recorded

log = logging.getLogger("jipsa.team")


@dataclass(frozen=True)
class StepWork:
    """What a team is asked to do: the step, its inputs and the results of the steps it depends on."""

    run_id: str
    step_id: str
    task: str
    inputs: StepInputs
    dependency_results: dict[str, StepResult]
    attempt: int
    session_id: str | None = None

    @property
    def query(self) -> str:
        return self.inputs.query

    @property
    def focus(self) -> list[StepFocus]:
        return self.inputs.focus

    @property
    def entities(self) -> QueryEntities:
        return self.inputs.entities


@dataclass(frozen=True)
class StepOutput:
    summary: str  # the one line a person reads on the todo
    result: StepResult
    tool_decisions: Sequence[ToolDecisionRecorded] = field(default_factory=tuple)
    llm_calls: Sequence[LlmCallRecorded] = field(default_factory=tuple)


class StepFailure(Exception):
    """The step cannot produce its result; `retryable` says whether another attempt may."""

    def __init__(self, code: str, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.code, self.message, self.retryable = code, message, retryable


TeamWork = Callable[[StepWork], Awaitable[StepOutput]]
ReadEvents = Callable[[Collection[UUID]], Awaitable[list[Recorded]]]  # EventStore.read_events
TRANSIENT = (psycopg.OperationalError, OSError)


def team_subscription(team: Team, work: TeamWork) -> Subscription:
    """The durable consumer every replica of a team shares, filtered to that team's steps."""

    async def prepare(envelope: Envelope, started: Event, store: EventStore) -> list[Envelope]:
        step = cast(StepStarted, started)  # its event_type below
        return await answer_step(team, work, step, envelope, store.read_events)

    async def record(ctx: HandlerContext) -> Outcome:
        return Outcome(ctx.prepared)

    return Subscription(
        consumer=f"team-{team.value}", event_type="StepStarted", handler=record, routing=team, prepare=prepare
    )


async def answer_step(
    team: Team, work: TeamWork, started: StepStarted, cause: Envelope, read_events: ReadEvents
) -> list[Envelope]:
    """Run the work for one StepStarted and return the events that record what happened."""
    began = time.perf_counter()
    try:
        step = StepWork(
            run_id=started.run_id,
            step_id=started.step_id,
            task=started.task,
            inputs=started.inputs,
            dependency_results=await dependency_results(started, read_events),
            attempt=started.attempt,
            session_id=cause.session_id,
        )
        with _work_span(team, started):
            output = await asyncio.wait_for(work(step), timeout=started.timeout_s)
    except StepFailure as reported:
        return [caused_by(_failed(team, started, reported, began), cause)]
    except TimeoutError:
        failure = StepFailure("timeout", f"no result within {started.timeout_s:g} s", retryable=True)
        return [caused_by(_failed(team, started, failure, began), cause)]
    except TRANSIENT:
        raise
    except Exception as bug:
        log.exception("%s step %s of run %s failed", team.value, started.step_id, started.run_id)
        failure = StepFailure("internal_error", f"{type(bug).__name__}: {bug}", retryable=False)
        return [caused_by(_failed(team, started, failure, began), cause)]
    completed = StepCompleted(
        run_id=started.run_id,
        step_id=started.step_id,
        team=team,
        attempt=started.attempt,
        summary=output.summary[:300],
        result=output.result,
        duration_ms=_elapsed_ms(began),
    )
    audit: list[Event] = [*output.tool_decisions, *output.llm_calls]
    return [caused_by(e, cause) for e in (*audit, completed)]


async def dependency_results(started: StepStarted, read_events: ReadEvents) -> dict[str, StepResult]:
    """The results of the steps `started` depends on, by step id: read from the StepCompleted events it
    names, in one statement on a connection held for that read alone (the work that follows holds none),
    or taken from the copies a StepStarted recorded as v2 carries."""
    if not started.result_events:
        return dict(started.copied_results)
    stored = {r.envelope.event_id: r for r in await read_events(started.result_events.values())}
    return {
        **started.copied_results,
        **{
            step_id: _result(started, step_id, stored.get(event_id))
            for step_id, event_id in started.result_events.items()
        },
    }


def _result(started: StepStarted, step_id: str, record: Recorded | None) -> StepResult:
    event = record.event() if record is not None else None
    if not isinstance(event, StepCompleted) or (event.run_id, event.step_id) != (started.run_id, step_id):
        found = "nothing" if record is None else f"{record.envelope.event_type} at {record.position}"
        message = f"the result of {step_id} (event {started.result_events[step_id]}) is {found} in the store"
        log.error("step %s of run %s: %s", started.step_id, started.run_id, message)
        raise StepFailure("dependency_unreadable", message, retryable=False)
    return event.result


def _work_span(team: Team, started: StepStarted) -> AbstractContextManager[Span]:
    """The team's work as a span inside the handler's: a failure or timeout marks it in error."""
    attributes = {
        "jipsa.team": team.value,
        "jipsa.step_id": started.step_id,
        "jipsa.task": started.task,
        "jipsa.attempt": started.attempt,
    }
    return telemetry.tracer().start_as_current_span(f"team {team.value}", attributes=attributes)


def _failed(team: Team, started: StepStarted, failure: StepFailure, began: float) -> StepFailed:
    return StepFailed(
        run_id=started.run_id,
        step_id=started.step_id,
        team=team,
        attempt=started.attempt,
        error=StepError(code=failure.code, message=failure.message[:1000]),
        retryable=failure.retryable,
        duration_ms=_elapsed_ms(began),
    )


def _elapsed_ms(began: float) -> float:
    return round((time.perf_counter() - began) * 1000, 3)
