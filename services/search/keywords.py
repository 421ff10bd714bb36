"""Keyword extraction by the LLM (the `keyword_extraction` call point), for the steps whose rules are unsure.

A planned step carries its topic in the task and its focus (the planner's one call, or its rules,
put them there), which the legal search already uses. A step without a focus (one the person added
to the plan) has only the person's words: there, when an endpoint is configured, the model names the
legal concepts they imply (보증금 못 받음 -> 보증금반환, 임차권등기명령), and the legal search asks
with them first. Without an endpoint, or on any failure, the step goes on with the person's words.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, ConfigDict, Field

from contracts.telemetry import LlmCallRecorded
from services.platform.llm import LlmClient
from services.platform.team import StepWork


class KeywordAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    keywords: list[str] = Field(default=[], max_length=10)
    legal_terms: list[str] = Field(default=[], max_length=10)
    regions: list[str] = Field(default=[], max_length=10)
    property_types: list[str] = Field(default=[], max_length=10)


async def with_keywords(llm: LlmClient | None, step: StepWork) -> tuple[StepWork, list[LlmCallRecorded]]:
    """The step with `inputs.search.keywords` from the model when it has no focus; else the step as it is."""
    if llm is None or not llm.configured or step.focus:
        return step, []
    result = await llm.structured(
        "keyword_extraction",
        {"query": step.query or step.task, "focus": "-"},
        KeywordAnswer,
        run_id=step.run_id,
        fallback=lambda: KeywordAnswer(),
    )
    terms = list(dict.fromkeys([*result.value.legal_terms, *result.value.keywords]))
    if not terms:
        return step, [result.record]
    search = step.inputs.search.model_copy(update={"keywords": terms})
    return replace(step, inputs=step.inputs.model_copy(update={"search": search})), [result.record]
