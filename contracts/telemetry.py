"""Events that make a run auditable: every LLM call and every tool decision."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from contracts.events import Event
from contracts.registry import REGISTRY


@REGISTRY.event
class LlmCallRecorded(Event):
    event_type = "LlmCallRecorded"
    producer = "llm"
    schema_version: Literal[1] = 1

    run_id: str
    call_point: str
    prompt_name: str
    prompt_hash: str
    model: str | None
    latency_ms: float = Field(ge=0)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    outcome: Literal["ok", "invalid_output", "error", "timeout", "not_configured"]
    fallback_used: bool
    error: str | None = None


@REGISTRY.event
class ToolDecisionRecorded(Event):
    event_type = "ToolDecisionRecorded"
    producer = "team"
    schema_version: Literal[1] = 1

    run_id: str
    step_id: str | None = None
    available_tools: list[str]
    selected_tools: list[str]
    reasoning: str
    confidence: float = Field(ge=0, le=1)
    outcome: str | None = None
