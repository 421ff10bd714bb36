"""Events of the planner."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from contracts.events import Event
from contracts.registry import REGISTRY
from contracts.values import Intent, PlanStep, Strategy


@REGISTRY.event
class PlanReady(Event):
    """The planner's reading of the question and the steps that answer it (empty for guidance)."""

    event_type = "PlanReady"
    producer = "planner"
    schema_version: Literal[1] = 1

    run_id: str
    intent: Intent
    steps: list[PlanStep] = []
    strategy: Strategy = "sequential"
    estimated_total_s: float = Field(default=0.0, ge=0)
    mode: Literal["llm", "rules"]
