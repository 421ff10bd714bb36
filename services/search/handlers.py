"""The search team's step handler: the team-of-tools loop (services/platform/team_of_tools.py) over
the search tools, with the keywords the model reads from a step without a focus (keywords.py) asked
for beside the choice of tools.

Failure policy (the loop's): a tool that raises is reported in `failed_tools` and the others' results
stand; only when every selected tool fails does the step fail, as retryable (the usual cause is a
dependency that is down, and the supervisor owns retries).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from contracts.results import StepResult
from services.platform.team import StepOutput, StepWork, TeamWork
from services.platform.team_of_tools import ToolWork, answer_with_tools
from services.search.keywords import with_keywords
from services.search.tools import SEARCH_TEAM, SearchContext, SearchTool


def search_work(ctx: SearchContext, tools: Mapping[str, SearchTool]) -> TeamWork:
    team = SEARCH_TEAM.only(list(tools))

    async def run(name: str, step: StepWork) -> StepResult:
        return await tools[name](ctx, step)

    work = ToolWork(run=run, llm=ctx.llm, enrich=partial(with_keywords, ctx.llm))

    async def answer(step: StepWork) -> StepOutput:
        return await answer_with_tools(team, step, work)

    return answer
