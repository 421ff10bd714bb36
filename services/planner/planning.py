"""How a question is planned: which mode, and the plan it gives.

- small talk ("안녕", "고마워") is answered by rules in either mode: no LLM call at all;
- a follow-up of the session's previous run ("그럼 서초구는?") is planned by rules from that
  run's intent, since the rules carry the earlier entities over exactly;
- otherwise, with an endpoint configured, one structured `planning` call (intent analysis, team
  selection and decomposition merged, and the model's reading of the turn, checked against the rules'
  reading, which the plan keeps); any failure of it (no answer, invalid JSON, a plan that does not
  validate) falls back to rules, and the record says so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from contracts.entities import QueryEntities
from contracts.planner import ReadingDisagreement
from contracts.telemetry import LlmCallRecorded
from services.housing.entities import extract_entities
from services.housing.text import normalize
from services.planner.intents import Evidence, is_small_talk
from services.planner.llm_plan import InvalidPlan, PlanningAnswer, disagreements, plan_from_llm
from services.planner.plan_rules import Plan, PriorTurn, continues, plan_by_rules
from services.platform.llm import LlmClient, LlmResult


@dataclass(frozen=True)
class Planned:
    plan: Plan
    mode: Literal["llm", "rules"]
    llm_calls: Sequence[LlmCallRecorded] = ()
    disagreements: Sequence[ReadingDisagreement] = ()  # where the model read the turn otherwise


async def plan(
    llm: LlmClient,
    query: str,
    previous: PriorTurn | None,
    run_id: str,
    today: date | None = None,
    evidence: Evidence | None = None,
) -> Planned:
    """The plan for a question asked on `today` (the day in Korea its QueryReceived occurred); the rules
    read `evidence` (the nearest labelled example) where their words leave them unsure. The turn is read
    once, against that day, and every choice below reads that reading."""
    reading = extract_entities(query, today=today)
    if is_small_talk(query) or (previous is not None and continues(normalize(query), reading, previous)):
        return Planned(await _by_rules(query, previous, today, evidence, reading), "rules")
    result: LlmResult[PlanningAnswer | None] = await llm.structured(
        "planning", {"query": query}, PlanningAnswer, run_id=run_id, fallback=lambda: None
    )
    if result.value is None:  # no endpoint, or no answer that fits the schema
        return Planned(await _by_rules(query, previous, today, evidence, reading), "rules", [result.record])
    try:
        planned = plan_from_llm(result.value, query, previous, today, reading)
    except InvalidPlan as invalid:
        record = result.record.model_copy(
            update={"outcome": "invalid_output", "fallback_used": True, "error": str(invalid)[:500]}
        )
        return Planned(await _by_rules(query, previous, today, evidence, reading), "rules", [record])
    checked = disagreements(result.value.reading, planned.intent.entities)
    return Planned(planned, "llm", [result.record], checked)


async def _by_rules(
    query: str,
    previous: PriorTurn | None,
    today: date | None,
    evidence: Evidence | None,
    reading: QueryEntities,
) -> Plan:
    """The rules' plan; with the evidence, in a worker thread: an unsure question's embedding (20-35 ms)
    must not hold the planner's event loop."""
    if evidence is None:
        return plan_by_rules(query, previous, today, reading=reading)
    return await asyncio.to_thread(plan_by_rules, query, previous, today, evidence, reading)
