"""The planner's handler: QueryReceived in, PlanReady out (with every LLM call it made recorded).

Which mode plans a question:
- small talk ("안녕", "고마워") is answered by rules in either mode: no LLM call at all;
- a follow-up of the session's previous run ("그럼 서초구는?") is planned by rules from that
  run's intent, since the rules carry the earlier entities over exactly;
- otherwise, with an endpoint configured, one structured `planning` call (intent analysis, team
  selection and decomposition merged); any failure of it (no answer, invalid JSON, a plan that does
  not validate) falls back to rules, and the record says so.

The session's previous run is read from the store (its latest PlanReady and QueryReceived), the
source of truth, in the handler's own transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from psycopg import AsyncConnection

from contracts import caused_by
from contracts.gateway import QueryReceived
from contracts.planner import PlanReady
from contracts.telemetry import LlmCallRecorded
from services.planner.followup import is_follow_up
from services.planner.intents import is_small_talk
from services.planner.llm_plan import InvalidPlan, PlanningAnswer, plan_from_llm
from services.planner.plan_rules import Plan, PriorTurn, plan_by_rules
from services.platform.consumer import HandlerContext, Outcome, Subscription
from services.platform.llm import LlmClient
from services.platform.store_reads import previous_plan


@dataclass(frozen=True)
class Planned:
    plan: Plan
    mode: str  # "llm" | "rules"
    llm_calls: Sequence[LlmCallRecorded] = ()


@dataclass(frozen=True)
class Planner:
    llm: LlmClient

    def subscription(self) -> Subscription:
        return Subscription("planner", "QueryReceived", self._on_query)

    async def _on_query(self, ctx: HandlerContext) -> Outcome:
        query: QueryReceived = ctx.event  # type: ignore[assignment]
        previous = await previous_turn(ctx.conn, ctx.envelope.session_id, query.run_id)
        planned = await self.plan(query.query, previous, query.run_id)
        ready = PlanReady(
            run_id=query.run_id,
            intent=planned.plan.intent,
            steps=planned.plan.steps,
            strategy=planned.plan.strategy,
            estimated_total_s=planned.plan.estimated_total_s,
            mode=planned.mode,
        )
        return Outcome([caused_by(e, ctx.envelope) for e in (*planned.llm_calls, ready)])

    async def plan(self, query: str, previous: PriorTurn | None, run_id: str) -> Planned:
        if is_small_talk(query) or (previous is not None and is_follow_up(query, previous)):
            return Planned(plan_by_rules(query, previous), "rules")
        result = await self.llm.structured(
            "planning", {"query": query}, PlanningAnswer, run_id=run_id, fallback=lambda: None
        )
        if not result.used_llm:
            return Planned(plan_by_rules(query, previous), "rules", [result.record])
        try:
            return Planned(plan_from_llm(result.value, query, previous), "llm", [result.record])
        except InvalidPlan as invalid:
            record = result.record.model_copy(
                update={"outcome": "invalid_output", "fallback_used": True, "error": str(invalid)[:500]}
            )
            return Planned(plan_by_rules(query, previous), "rules", [record])


async def previous_turn(conn: AsyncConnection, session_id: str | None, run_id: str) -> PriorTurn | None:
    """The session's latest planned run before this one: its question and the intent read from it."""
    if session_id is None:
        return None
    previous = await previous_plan(conn, session_id, before_run=run_id)
    if previous is None:
        return None
    return PriorTurn(query=previous.question.query, intent=previous.plan.intent)
