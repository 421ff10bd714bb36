"""Tool selection by the LLM where a team's rules are unsure (the `search_tool_selection` and
`analysis_tool_selection` call points).

The planner's one `planning` call already sets each step's focus, and a focus names the tools, so a
second LLM call per step would re-decide what is decided and sit on the critical path. A team asks
the model only when its rules are unsure (no focus: a step the person added to the plan, say) and
an endpoint is configured; whatever the model answers is kept to the tools that exist, and an
answer that names none of them (or no answer) leaves the rules' choice standing, recorded as a
fallback.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from contracts.telemetry import LlmCallRecorded
from services.platform.llm import LlmClient

SURE = 0.9  # a rules choice this confident (the planner's focus) is not second-guessed


class ToolChoiceAnswer(BaseModel):
    """The structured answer of `search_tool_selection` / `analysis_tool_selection`."""

    model_config = ConfigDict(extra="forbid")

    selected_tools: list[str] = Field(max_length=10, description="names from the tool list only")
    reasoning: str = Field(max_length=500, description="why each tool is needed, in Korean")
    confidence: float = Field(ge=0, le=1)


@dataclass(frozen=True)
class ToolPick:
    names: list[str]
    reasoning: str
    confidence: float
    llm_call: LlmCallRecorded | None = None


async def pick_tools(
    llm: LlmClient | None,
    call_point: str,
    *,
    rules: ToolPick,
    available: Mapping[str, str],
    variables: dict[str, Any],
    run_id: str,
) -> ToolPick:
    """The rules' pick, or the model's when the rules are unsure and the model names real tools."""
    if llm is None or not llm.configured or rules.confidence >= SURE:
        return rules
    tools = "\n".join(f"- {name}: {description}" for name, description in available.items())
    result = await llm.structured(
        call_point, {**variables, "tools": tools}, ToolChoiceAnswer, run_id=run_id, fallback=lambda: None
    )
    answer = result.value
    chosen = [n for n in dict.fromkeys(answer.selected_tools) if n in available] if answer else []
    if answer is None or not result.used_llm or not chosen:
        record = result.record
        if result.used_llm:  # answered, but with no tool we have
            update = {"outcome": "invalid_output", "fallback_used": True, "error": "no known tool selected"}
            record = record.model_copy(update=update)
        return replace(rules, llm_call=record)
    return ToolPick(chosen, answer.reasoning, answer.confidence, result.record)
