"""A team of tools (도구 팀): how a team whose steps are answered by several independent tools (search,
analysis) answers one step. The loop is written once, here; a team declares its tools and its policy
as data (`ToolTeam`) and hands in how to run a tool.

1. Choose. The step's focus (set by the planner) names the tools; without a focus that names one, the
   words of the step do; without those, the team's default. Where the rules are unsure, the model may
   choose instead (`pick_tools`, only with an endpoint configured).
2. Run the chosen tools concurrently, each isolated: a tool that raises is reported in `failed_tools`
   and the others' results stand.
3. Only when every chosen tool failed does the step fail, as retryable: the usual cause is a dependency
   that is down or a data file being fixed, not the question, and the supervisor owns retries.
4. Merge the results as the team presents them, and record the ToolDecision: the tools available, the
   ones chosen and why, how sure the choice was, and per tool whether it ran, how long and why not.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from contracts.results import StepResult
from contracts.telemetry import LlmCallRecorded, ToolDecisionRecorded
from contracts.values import StepFocus, Team
from services.platform.llm import LlmClient
from services.platform.team import StepFailure, StepOutput, StepWork
from services.platform.tool_choice import SURE, ToolPick, pick_tools

log = logging.getLogger("jipsa.team")

# How sure each rule is of its choice. Below SURE the model is asked where an endpoint is configured.
BY_FOCUS = SURE  # the planner chose, with the whole question in view: not second-guessed
BY_WORDS = 0.6  # words of the step suggest the tools; a model reads them better
BY_DEFAULT = 0.3  # nothing pointed anywhere: the team's default, or nothing


@dataclass(frozen=True)
class Tool:
    """One tool as a team declares it: what it is called, what the model reads of it when it chooses,
    which step focuses it serves and which words of a step call for it."""

    name: str
    description: str
    focuses: tuple[StepFocus, ...]
    words: re.Pattern[str]


def no_extra_tools(step: StepWork) -> Sequence[str]:
    return ()


def no_extra_variables(step: StepWork) -> dict[str, str]:
    return {}


@dataclass(frozen=True)
class ToolTeam:
    """A team's tools and its policy, as data."""

    team: Team
    tools: tuple[Tool, ...]
    call_point: str  # the LLM call point that chooses where the rules are unsure
    # Several tools chosen by focus run (and lead the answer) in the focus's order, else the table's.
    lead_by_focus: bool
    words_of: Callable[[StepWork], str]  # the text whose words choose when the focus does not
    merge: Callable[[StepWork, dict[str, StepResult], dict[str, str]], StepResult]
    done: str  # the todo's line when the merged result has no headline
    nothing_chosen: StepOutput  # the answer when no tool fits: ask the person what to look at
    default: tuple[str, ...] = ()  # the tools for a step nothing points at
    # Tools the step's inputs call for whatever its words say (a pasted contract calls for its review).
    called_for: Callable[[StepWork], Sequence[str]] = no_extra_tools
    # What the choosing call point reads beside the query, the task and the focus.
    prompt_variables: Callable[[StepWork], dict[str, str]] = no_extra_variables

    def names(self) -> list[str]:
        return [t.name for t in self.tools]

    def only(self, names: Sequence[str]) -> ToolTeam:
        """The team with just these tools (a deployment or a test that runs fewer)."""
        return replace(self, tools=tuple(t for t in self.tools if t.name in names))


def choose_by_rules(team: ToolTeam, step: StepWork) -> ToolPick:
    """Focus decides when the planner gave one that names a tool; otherwise words of the step (and its
    inputs) do; otherwise the team's default."""
    if by_focus := _by_focus(team, step.focus):
        return ToolPick(by_focus, f"단계 focus {', '.join(step.focus)} → {', '.join(by_focus)}", BY_FOCUS)
    text = team.words_of(step)
    by_words = [t.name for t in team.tools if t.words.search(text)]
    by_words += [n for n in team.called_for(step) if n in team.names() and n not in by_words]
    if by_words:
        return ToolPick(
            by_words, f"focus로 정해지지 않아 질문의 핵심어로 고름 → {', '.join(by_words)}", BY_WORDS
        )
    default = [n for n in team.default if n in team.names()]
    return ToolPick(
        default, f"focus도 핵심어도 맞는 도구가 없음 → {', '.join(default) or '없음'}", BY_DEFAULT
    )


def _by_focus(team: ToolTeam, focus: Sequence[str]) -> list[str]:
    serves = {t.name: {f.value for f in t.focuses} for t in team.tools}
    if team.lead_by_focus:
        chosen = [name for f in focus for name, served in serves.items() if f in served]
    else:
        chosen = [name for name, served in serves.items() if served & set(focus)]
    return list(dict.fromkeys(chosen))


RunTool = Callable[[str, StepWork], Awaitable[StepResult]]
Enrich = Callable[[StepWork], Awaitable[tuple[StepWork, list[LlmCallRecorded]]]]
Judge = Callable[
    [StepWork, StepResult, dict[str, StepResult]], Awaitable[tuple[StepResult, list[LlmCallRecorded]]]
]


async def unchanged(step: StepWork) -> tuple[StepWork, list[LlmCallRecorded]]:
    return step, []


async def unjudged(
    step: StepWork, merged: StepResult, results: dict[str, StepResult]
) -> tuple[StepResult, list[LlmCallRecorded]]:
    return merged, []


@dataclass(frozen=True)
class ToolRun:
    name: str
    result: StepResult | None
    error: str | None
    ms: float


@dataclass(frozen=True)
class ToolWork:
    """What answering a step needs at run time: how to run a tool by name, the LLM client (for the
    choice where the rules are unsure), and the team's own calls before the tools (`enrich`, run beside
    the choice) and after the merge (`judge`)."""

    run: RunTool
    llm: LlmClient | None = None
    enrich: Enrich = unchanged
    judge: Judge = unjudged


async def answer_with_tools(team: ToolTeam, step: StepWork, work: ToolWork) -> StepOutput:
    # The team's own call before the tools (search's keywords) runs beside the choice: both may wait
    # on the model, and neither needs the other.
    (choice, (enriched, enrich_calls)) = await asyncio.gather(
        _choose(team, step, work.llm), work.enrich(step)
    )
    choice_calls = [choice.llm_call] if choice.llm_call else []
    if not choice.names:
        decision = _decision(team, step, choice, [])
        nothing = team.nothing_chosen
        return StepOutput(nothing.summary, nothing.result, [decision], [*enrich_calls, *choice_calls])
    runs = await asyncio.gather(*(_run(team, name, work.run, enriched) for name in choice.names))
    if all(r.result is None for r in runs):
        failures = "; ".join(f"{r.name}: {r.error}" for r in runs)
        raise StepFailure("all_tools_failed", failures, retryable=True)
    results = {r.name: r.result for r in runs if r.result is not None}
    failed = {r.name: r.error for r in runs if r.error is not None}
    result, judge_calls = await work.judge(enriched, team.merge(enriched, results, failed), results)
    return StepOutput(
        summary=result.headline or team.done,
        result=result,
        tool_decisions=[_decision(team, step, choice, runs)],
        llm_calls=[*enrich_calls, *choice_calls, *judge_calls],
    )


async def _choose(team: ToolTeam, step: StepWork, llm: LlmClient | None) -> ToolPick:
    """The rules' choice, or the model's where the rules are unsure and it names real tools."""
    variables = {"query": step.query, "task": step.task, "focus": ", ".join(step.focus) or "-"}
    return await pick_tools(
        llm,
        team.call_point,
        rules=choose_by_rules(team, step),
        available={t.name: t.description for t in team.tools},
        variables={**variables, **team.prompt_variables(step)},
        run_id=step.run_id,
    )


async def _run(team: ToolTeam, name: str, run: RunTool, step: StepWork) -> ToolRun:
    """One tool, its failure caught here so it cannot take the others down with it."""
    began = time.perf_counter()
    try:
        result = await run(name, step)
    except Exception as error:  # isolation is the point: any tool error becomes failed_tools
        log.exception(
            "%s tool %s failed on step %s of run %s", team.team.value, name, step.step_id, step.run_id
        )
        return ToolRun(name, None, f"{type(error).__name__}: {error}"[:300], _ms(began))
    return ToolRun(name, result, None, _ms(began))


def _decision(team: ToolTeam, step: StepWork, choice: ToolPick, runs: list[ToolRun]) -> ToolDecisionRecorded:
    return ToolDecisionRecorded(
        run_id=step.run_id,
        step_id=step.step_id,
        available_tools=sorted(team.names()),
        selected_tools=choice.names,
        reasoning=choice.reasoning,
        confidence=choice.confidence,
        outcome=_outcome(runs),
    )


def _outcome(runs: list[ToolRun]) -> str:
    """Per tool: ok or failed, why, and how long it took, as JSON an audit can read back."""
    return json.dumps(
        {r.name: {"ok": r.error is None, "ms": round(r.ms, 2), "error": r.error} for r in runs},
        ensure_ascii=False,
    )


def _ms(began: float) -> float:
    return (time.perf_counter() - began) * 1000
