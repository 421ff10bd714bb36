"""Events of the planner."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, JsonValue

from contracts.entities import QueryEntities
from contracts.events import Event
from contracts.frozen import Frozen
from contracts.registry import REGISTRY
from contracts.steps import split_fields
from contracts.values import Intent, IntentType, PlanStep, Strategy


class IntentV1(Frozen):
    """The intent as PlanReady v1 carried it: the reading as an untyped dict."""

    type: IntentType
    confidence: float = Field(ge=0, le=1)
    keywords: list[str] = []
    entities: dict[str, Any] = {}


@REGISTRY.event
class PlanReadyV1(Event):
    """First published shape: the reading (`intent.entities`) a free dict. Read through
    `upcast_plan_ready_v1`."""

    event_type = "PlanReady"
    producer = "planner"
    schema_version: Literal[1] = 1

    run_id: str
    intent: IntentV1
    steps: list[PlanStep] = []
    strategy: Strategy = "sequential"
    estimated_total_s: float = Field(default=0.0, ge=0)
    mode: Literal["llm", "rules"]


class ReadingDisagreement(Frozen):
    """A field of the reading the planning LLM read otherwise than the rules: the rules' value is kept."""

    field: str = Field(description="the QueryEntities field: gu, deal_type, guarantee_asked …")
    rules: JsonValue = Field(description="the value the rules read, which the plan carries")
    llm: JsonValue = Field(description="the value the LLM read")


@REGISTRY.event
class PlanReady(Event):
    """v2: the planner's reading of the question, typed (`intent.entities`, read once from the turn), and
    the steps that answer it (empty for guidance). A plan the LLM made records where its reading of the
    turn differed from the rules' (`disagreements`); amounts and dates it is never asked for."""

    event_type = "PlanReady"
    producer = "planner"
    schema_version: Literal[2] = 2

    run_id: str
    intent: Intent
    steps: list[PlanStep] = []
    strategy: Strategy = "sequential"
    estimated_total_s: float = Field(default=0.0, ge=0)
    mode: Literal["llm", "rules"]
    disagreements: list[ReadingDisagreement] = Field(
        default=[], description="fields the planning LLM read otherwise than the rules (mode llm only)"
    )


@REGISTRY.upcaster("PlanReady", from_version=1)
def upcast_plan_ready_v1(data: dict[str, Any]) -> dict[str, Any]:
    """v1's reading as the typed one: its keys that read as reading fields (the planner wrote a dumped
    QueryEntities); any other key (the first examples' "region") no reader of this build looks at."""
    intent = data["intent"]
    entities, _ = split_fields(QueryEntities, intent.get("entities", {}))
    return {**data, "intent": {**intent, "entities": entities}}
