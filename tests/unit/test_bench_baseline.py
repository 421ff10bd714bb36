"""The benchmark's LangGraph baseline takes the seed's paths: a greeting skips the teams, a question
runs them in plan order, and every run ends in generate_response with its checkpoints in SQLite."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.langgraph_baseline import run_seed, seed_app

pytestmark = pytest.mark.unit

FULL = ["initialize", "planning", "execute_teams", "aggregate", "generate_response"]


@pytest.mark.parametrize(
    ("query", "intent", "visited", "teams", "response"),
    [
        ("안녕", "IRRELEVANT", ["initialize", "planning", "generate_response"], [], "guidance"),
        ("전세금 5% 인상 제한이 언제까지인가요?", "LEGAL_CONSULT", FULL, ["search", "analysis"], "answer"),
        (
            "강남구 아파트 전세 시세와 위험도 분석해줘",
            "MARKET_INQUIRY",
            FULL,
            ["search", "analysis"],
            "answer",
        ),
        ("임대차계약서 작성해줘", "CONTRACT_CREATION", FULL, ["document"], "answer"),
    ],
)
async def test_each_path_reaches_generate_response(
    tmp_path: Path, query: str, intent: str, visited: list[str], teams: list[str], response: str
) -> None:
    async with seed_app(tmp_path / "checkpoints.db") as app:
        state = await run_seed(app, query)
        checkpoints = [c async for c in app.checkpointer.alist(None)]

    assert state["intent"] == intent
    assert state["visited"] == visited
    assert [s["team"] for s in state["steps"]] == teams
    assert all(s["status"] == "completed" for s in state["steps"]) and len(state["team_results"]) == len(
        teams
    )
    assert state["response"]["type"] == response
    assert state["llm_calls"] == []  # rules mode: nothing leaves the process
    assert len(checkpoints) >= len(visited)  # a checkpoint per superstep
