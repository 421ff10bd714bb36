"""The planner's handler: QueryReceived in, PlanReady out (with every LLM call it made recorded).

The mode and the plan are planning.py's; this reads the session's previous run from the store (its
latest PlanReady and QueryReceived), the source of truth, in the handler's own transaction, and the
facts the person stated before (remembered.py): in the session's earlier turns, or, for a person's
session, in any conversation Jipsa remembers. Every step gets them unless this turn says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from psycopg import AsyncConnection

from contracts import Envelope, caused_by
from contracts.gateway import QueryReceived
from contracts.planner import PlanReady
from contracts.values import PlanStep
from services.housing.dates import korean_day
from services.housing.memory import REMEMBERED_TYPES, Said, memory_of
from services.planner.intents import Evidence
from services.planner.plan_rules import PriorTurn
from services.planner.planning import plan
from services.planner.remembered import (
    Remembered,
    facts_of,
    facts_of_person,
    intent_remembering,
    steps_remembering,
)
from services.platform.consumer import HandlerContext, Outcome, Subscription
from services.platform.llm import LlmClient
from services.platform.store_reads import earlier_plans, person_events, previous_plan


@dataclass(frozen=True)
class Planner:
    llm: LlmClient
    evidence: Evidence | None = None  # the nearest labelled example (evidence.py), when the model loaded

    def subscription(self) -> Subscription:
        return Subscription("planner", "QueryReceived", self._on_query)

    async def _on_query(self, ctx: HandlerContext) -> Outcome:
        query: QueryReceived = ctx.event  # type: ignore[assignment]
        previous = await previous_turn(ctx.conn, ctx.envelope.session_id, query.run_id)
        asked_on = korean_day(ctx.envelope.occurred_at)  # the turn's own time, so a replay reads the same
        planned = await plan(self.llm, query.query, previous, query.run_id, asked_on, self.evidence)
        remembered = await remembered_before(ctx.conn, ctx.envelope, query.run_id)
        ready = PlanReady(
            run_id=query.run_id,
            intent=intent_remembering(planned.plan.intent, remembered),
            steps=said_on(steps_remembering(planned.plan.steps, remembered), asked_on),
            strategy=planned.plan.strategy,
            estimated_total_s=planned.plan.estimated_total_s,
            mode=planned.mode,
            disagreements=list(planned.disagreements),
        )
        return Outcome([caused_by(e, ctx.envelope) for e in (*planned.llm_calls, ready)])


def said_on(steps: list[PlanStep], day: date) -> list[PlanStep]:
    """Every step told the day the person asked, so its team reads '내일' against it as the planner did."""
    return [step.model_copy(update={"inputs": {**step.inputs, "said_on": day.isoformat()}}) for step in steps]


async def remembered_before(conn: AsyncConnection, asked: Envelope, run_id: str) -> Remembered:
    """What the person stated before this run: what Jipsa remembers of them while they let it, else
    what they said in the session's earlier turns (the conversation itself)."""
    if asked.person_id is not None:
        said = await person_events(conn, asked.person_id, REMEMBERED_TYPES, but_run=run_id)
        memory = memory_of(asked.person_id, (Said.of(r.position, r.envelope) for r in said))
        if memory.remembering:
            return facts_of_person(memory, asked.session_id)
    if asked.session_id is None:
        return Remembered()
    return facts_of(await earlier_plans(conn, asked.session_id, before_run=run_id))


async def previous_turn(conn: AsyncConnection, session_id: str | None, run_id: str) -> PriorTurn | None:
    """The session's latest planned run before this one: its question and the intent read from it."""
    if session_id is None:
        return None
    previous = await previous_plan(conn, session_id, before_run=run_id)
    if previous is None:
        return None
    return PriorTurn(query=previous.question.query, intent=previous.plan.intent)
