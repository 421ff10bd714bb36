"""How a team service answers the steps dispatched to it: StepStarted{team} in, StepCompleted or
StepFailed out, with the tool decisions and LLM calls the work made, all in one commit.

A team provides one async function `work(StepWork) -> StepOutput`; this module turns it into a
consumer subscription. Error policy for a step (the consumer's own policy sits under it):
- the work raises `StepFailure`: recorded as StepFailed with its code and `retryable` flag; the
  supervisor owns retries, so the team never retries a step itself;
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
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import cast

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
TRANSIENT = (psycopg.OperationalError, OSError)


def team_subscription(team: Team, work: TeamWork) -> Subscription:
    """The durable consumer every replica of a team shares, filtered to that team's steps."""

    async def prepare(envelope: Envelope, started: Event) -> list[Envelope]:
        return await answer_step(team, work, cast(StepStarted, started), envelope)  # its event_type below

    async def record(ctx: HandlerContext) -> Outcome:
        return Outcome(ctx.prepared)

    return Subscription(
        consumer=f"team-{team.value}", event_type="StepStarted", handler=record, routing=team, prepare=prepare
    )


async def answer_step(team: Team, work: TeamWork, started: StepStarted, cause: Envelope) -> list[Envelope]:
    """Run the work for one StepStarted and return the events that record what happened."""
    step = StepWork(
        run_id=started.run_id,
        step_id=started.step_id,
        task=started.task,
        inputs=started.inputs,
        dependency_results=started.dependency_results,
        attempt=started.attempt,
        session_id=cause.session_id,
    )
    began = time.perf_counter()
    try:
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
