"""The analysis team service: StepStarted{team: analysis} in, the tools' combined result out.

Tools are pure and independent, so they run concurrently (each in a worker thread: a contract review
or a large comparable set must not hold the event loop). A tool that raises is isolated in
`failed_tools` and the rest stand; when every selected tool fails the step fails as retryable, since the
cause is more likely a bad deploy or data file being fixed than the question itself.
"""

from __future__ import annotations

import asyncio
import logging

from psycopg_pool import AsyncConnectionPool

from contracts.results import Question, StepResult
from contracts.telemetry import LlmCallRecorded, ToolDecisionRecorded
from contracts.values import Team
from services.analysis.case import Case, stated_facts
from services.analysis.contract_review import contract_text
from services.analysis.insight import summarise
from services.analysis.judgement import contract_judgement
from services.analysis.policies import PolicyBook
from services.analysis.rulebook import CORPUS, RuleBook
from services.analysis.statutes import StatuteBook
from services.analysis.tools import DESCRIPTIONS, TOOLS, Library, Selection, Tool, select_tools
from services.platform.llm import LlmClient, LlmSettings
from services.platform.service import Wiring
from services.platform.settings import InfraSettings
from services.platform.team import StepFailure, StepOutput, StepWork, TeamWork, team_subscription
from services.platform.tool_choice import ToolPick, pick_tools

log = logging.getLogger("jipsa.analysis")
CITED_LAWS = {"주택임대차보호법", "주택임대차보호법 시행령", "공인중개사법 시행규칙"}


def load_library() -> Library:
    return Library(
        rules=RuleBook.load(), statutes=StatuteBook.load(CORPUS, laws=CITED_LAWS), policies=PolicyBook.load()
    )


def analysis_work(library: Library, llm: LlmClient | None = None) -> TeamWork:
    async def work(step: StepWork) -> StepOutput:
        return await analyse(step, library, llm)

    return work


async def analyse(step: StepWork, library: Library, llm: LlmClient | None = None) -> StepOutput:
    entities = {**step.entities, **stated_facts(step.dependency_results)}
    case = Case(step.query, entities, step.inputs, step.dependency_results)
    selection, llm_calls = await _select(step, case, llm)
    if not selection.tools:
        result = StepResult(
            headline="이 질문에서 분석할 항목을 찾지 못했습니다.",
            questions=[
                Question(field="focus", label="분석할 내용", hint="예: 전세금 인상 한도, 깡통전세 위험")
            ],
        )
        return StepOutput(
            "분석 항목 없음", result, [_decision(step, selection, "nothing_selected")], llm_calls
        )
    outcomes = await asyncio.gather(
        *(_run(tool, case, library) for tool in selection.tools), return_exceptions=True
    )
    results = {t.name: o for t, o in zip(selection.tools, outcomes, strict=True) if isinstance(o, StepResult)}
    failed = {
        t.name: _reason(o)
        for t, o in zip(selection.tools, outcomes, strict=True)
        if isinstance(o, BaseException)
    }
    if not results:
        raise StepFailure(
            "all_tools_failed", "; ".join(f"{k}: {v}" for k, v in failed.items()), retryable=True
        )
    result, judged = await _with_judgement(summarise(results, failed), results, case, step, llm)
    llm_calls = [*llm_calls, *judged]
    outcome = "ok" if not failed else f"partial: {', '.join(failed)} failed"
    return StepOutput(
        result.headline or "분석 완료", result, [_decision(step, selection, outcome)], llm_calls
    )


async def _select(
    step: StepWork, case: Case, llm: LlmClient | None
) -> tuple[Selection, list[LlmCallRecorded]]:
    """The rules' selection, or the model's where the rules are unsure (services/platform/tool_choice.py)."""
    rules = select_tools(case, step.focus)
    pick = await pick_tools(
        llm,
        "analysis_tool_selection",
        rules=ToolPick([t.name for t in rules.tools], rules.reasoning, rules.confidence),
        available=DESCRIPTIONS,
        variables={
            "query": step.query,
            "task": step.task,
            "focus": ", ".join(step.focus) or "-",
            "available_data": ", ".join(sorted(step.dependency_results)) or "-",
        },
        run_id=step.run_id,
    )
    by_name = {t.name: t for t in TOOLS}
    selection = Selection([by_name[n] for n in pick.names], pick.reasoning, pick.confidence)
    return selection, [pick.llm_call] if pick.llm_call else []


async def _with_judgement(
    result: StepResult, results: dict[str, StepResult], case: Case, step: StepWork, llm: LlmClient | None
) -> tuple[StepResult, list[LlmCallRecorded]]:
    """The rules' result with the risks the model adds to a pasted contract's review (judgement.py).

    Insights drawn from the analyses as a whole are not asked for here: the supervisor's one
    `response_synthesis` call writes them from the steps' results, in the call it makes anyway."""
    review, contract = results.get("contract_review"), contract_text(case)
    if not review or not contract:
        return result, []
    risks, calls = await contract_judgement(llm, contract, review, step.run_id)
    if not risks:
        return result, calls
    findings = list(dict.fromkeys([*result.findings, *risks]))
    return result.model_copy(update={"findings": findings}), calls


async def _run(tool: Tool, case: Case, library: Library) -> StepResult:
    try:
        return await asyncio.to_thread(tool.run, case, library)
    except Exception:
        log.exception("analysis tool %s failed", tool.name)
        raise


def _reason(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:300]


def _decision(step: StepWork, selection: Selection, outcome: str) -> ToolDecisionRecorded:
    return ToolDecisionRecorded(
        run_id=step.run_id,
        step_id=step.step_id,
        available_tools=[t.name for t in TOOLS],
        selected_tools=[t.name for t in selection.tools],
        reasoning=selection.reasoning,
        confidence=selection.confidence,
        outcome=outcome,
    )


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    """The rules and statutes are read once at start-up; a broken data file stops the service here."""
    return Wiring([team_subscription(Team.ANALYSIS, analysis_work(load_library(), LlmClient(LlmSettings())))])
