"""The analysis team's step handler: StepStarted{team: analysis} in, the tools' combined result out, through
the team-of-tools loop (services/platform/team_of_tools.py) over the registry of analysis tools (tools.py).

Tools are pure and independent, so they run concurrently, each in a worker thread: a contract review
or a large comparable set must not hold the event loop. A tool that raises is isolated in
`failed_tools` and the rest stand; when every selected tool fails the step fails as retryable, since the
cause is more likely a bad deploy or data file being fixed than the question itself.
"""

from __future__ import annotations

import asyncio

from contracts.results import StepResult
from contracts.telemetry import LlmCallRecorded
from services.analysis.case import Case, stated_facts, with_stated
from services.analysis.lease_contract.judgement import with_judgement
from services.analysis.rules.library import Library
from services.analysis.tools import ANALYSIS_TEAM, run_tool
from services.platform.llm import LlmClient
from services.platform.team import StepOutput, StepWork, TeamWork
from services.platform.team_of_tools import ToolWork, answer_with_tools


def analysis_work(library: Library, llm: LlmClient | None = None) -> TeamWork:
    async def work(step: StepWork) -> StepOutput:
        return await analyse(step, library, llm)

    return work


async def analyse(step: StepWork, library: Library, llm: LlmClient | None = None) -> StepOutput:
    facts = stated_facts(step.dependency_results)
    case = Case(
        step.query,
        with_stated(step.entities, facts),
        facts,
        step.dependency_results,
        said_on=step.inputs.said_on,
    )

    async def run(name: str, _: StepWork) -> StepResult:
        return await asyncio.to_thread(run_tool, name, case, library)

    async def judge(
        _: StepWork, merged: StepResult, results: dict[str, StepResult]
    ) -> tuple[StepResult, list[LlmCallRecorded]]:
        return await with_judgement(merged, results, case, step.run_id, llm)

    return await answer_with_tools(ANALYSIS_TEAM, step, ToolWork(run=run, llm=llm, judge=judge))
