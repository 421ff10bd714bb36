"""The search team's step handler: choose tools, run them concurrently, record the decision.

Failure policy: a tool that raises is reported in `failed_tools` and the others' results stand;
only when every selected tool fails does the step fail, as retryable (the usual cause is a
dependency that is down, and the supervisor owns retries).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass

from contracts.results import StepResult
from contracts.telemetry import ToolDecisionRecorded
from services.platform.team import StepFailure, StepOutput, StepWork, TeamWork
from services.platform.tool_choice import pick_tools
from services.search.keywords import with_keywords
from services.search.tools import TOOL_DESCRIPTIONS, SearchContext, Tool, answering_first, choose_tools

log = logging.getLogger("jipsa.search")


@dataclass(frozen=True)
class ToolRun:
    name: str
    result: StepResult | None
    error: str | None
    ms: float


def search_work(ctx: SearchContext, tools: Mapping[str, Tool]) -> TeamWork:
    async def work(step: StepWork) -> StepOutput:
        # Both LLM calls happen only for a step without the planner's focus, and side by side.
        choice, (step, keyword_calls) = await asyncio.gather(
            pick_tools(
                ctx.llm,
                "search_tool_selection",
                rules=choose_tools(step, tools),
                available={name: TOOL_DESCRIPTIONS.get(name, name) for name in tools},
                variables={"query": step.query, "task": step.task, "focus": ", ".join(step.focus) or "-"},
                run_id=step.run_id,
            ),
            with_keywords(ctx.llm, step),
        )
        names = answering_first(step, choice.names)
        runs = await asyncio.gather(*(_run(name, tools[name], ctx, step) for name in names))
        decision = ToolDecisionRecorded(
            run_id=step.run_id,
            step_id=step.step_id,
            available_tools=sorted(tools),
            selected_tools=choice.names,
            reasoning=choice.reasoning,
            confidence=choice.confidence,
            outcome=_outcome(runs),
        )
        if all(r.result is None for r in runs):
            failures = "; ".join(f"{r.name}: {r.error}" for r in runs)
            raise StepFailure("all_tools_failed", failures, retryable=True)
        result = merge([r for r in runs if r.result is not None], {r.name: r.error for r in runs if r.error})
        llm_calls = [*keyword_calls, *([choice.llm_call] if choice.llm_call else [])]
        summary = result.headline or "검색 완료"
        return StepOutput(summary=summary, result=result, tool_decisions=[decision], llm_calls=llm_calls)

    return work


async def _run(name: str, tool: Tool, ctx: SearchContext, step: StepWork) -> ToolRun:
    """One tool, its failure caught here so it cannot take the others down with it."""
    began = time.perf_counter()
    try:
        result = await tool(ctx, step)
    except Exception as error:  # isolation is the point: any tool error becomes failed_tools
        log.warning("tool %s failed on step %s: %r", name, step.step_id, error)
        return ToolRun(name, None, f"{type(error).__name__}: {error}"[:300], _ms(began))
    return ToolRun(name, result, None, _ms(began))


def merge(runs: list[ToolRun], failed: dict[str, str]) -> StepResult:
    """Results of several tools as one: the first tool's headline leads, lists are concatenated,
    each tool's typed data stays under its own keys."""
    results = [r.result for r in runs if r.result is not None]
    return StepResult(
        headline=next((r.headline for r in results if r.headline), None),
        findings=list(dict.fromkeys(f for r in results for f in _findings(r, lead=r is results[0]))),
        figures=[f for r in results for f in r.figures],
        citations=[c for r in results for c in r.citations],
        listings=[row for r in results for row in r.listings],
        documents=[d for r in results for d in r.documents],
        questions=[q for r in results for q in r.questions],
        failed_tools=failed,
        data={k: v for r in results for k, v in r.data.items()},
    )


def _findings(result: StepResult, lead: bool) -> list[str]:
    """A tool whose headline does not lead the merged result keeps it as its first finding."""
    return ([result.headline] if result.headline and not lead else []) + result.findings


def _outcome(runs: list[ToolRun]) -> str:
    """Per tool: ok or failed, why, and how long it took, as JSON an audit can read back."""
    return json.dumps(
        {r.name: {"ok": r.error is None, "ms": round(r.ms, 2), "error": r.error} for r in runs},
        ensure_ascii=False,
    )


def _ms(began: float) -> float:
    return (time.perf_counter() - began) * 1000
