"""The design Jipsa replaces, rebuilt for the benchmark: the seed's LangGraph `StateGraph` with an
`AsyncSqliteSaver` checkpointer, doing the same trivial work Jipsa's rules mode does.

    initialize -> planning -> route_after_planning -> execute_teams -> aggregate -> generate_response
                                     \\-- IRRELEVANT / UNCLEAR / no steps --------> generate_response

What each node costs, kept honest against Jipsa:
- planning runs Jipsa's own keyword rules (`plan_by_rules`), so both designs pay the same for intent
  rules and reach the same intent, teams and order;
- the teams are async functions doing trivial work (a small result dict), run one after another in
  plan order, as the seed's `execute_teams_node` did with its default sequential strategy;
- every superstep is checkpointed to SQLite, one thread per run, as the seed did per session.

With an LLM endpoint (`SeedLlm`), the nodes call it where the seed did, one awaited request after
another over HTTP with the `openai` client (the seed's numbering from its flow document):
- planning: #1 intent_analysis; #2 agent_selection unless the intent is IRRELEVANT / UNCLEAR;
- search team: #4 keyword_extraction, #5 search_tool_selection;
- analysis team: #6 analysis_tool_selection;
- generate_response: #10 response_synthesis when teams produced results (guidance needs none).
So "안녕" costs 1 call and a search + analysis plan 6. `all_calls=True` adds the seed's other calls on
these paths: #3 query_decomposition for a plan of several steps and #8 market_insight + #9
insight_synthesis in the analysis team (up to 9; #7 contract_analysis needs a contract, absent here).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import operator
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict, cast

import openai
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from openai import omit
from openai.types.chat import ChatCompletionMessageParam

from services.housing.intent_catalogue import GUIDANCE_INTENTS
from services.planner.plan_rules import plan_by_rules

GUIDANCE = {intent.value for intent in GUIDANCE_INTENTS}
GUIDANCE_TEXT = "집사는 부동산 질문에 답합니다. 예: '강남구 아파트 전세 시세 알려줘'"
LLM_TIMEOUT_S = 30.0


class SeedState(TypedDict, total=False):
    run_id: str
    query: str
    status: str
    intent: str
    confidence: float
    steps: list[dict[str, Any]]
    team_results: dict[str, dict[str, Any]]
    aggregated: dict[str, Any]
    response: dict[str, Any]
    # Appended to by each node (the reducer), so a test can see the path and the calls a run took.
    visited: Annotated[list[str], operator.add]
    llm_calls: Annotated[list[str], operator.add]


@dataclass(frozen=True)
class SeedLlm:
    """The seed's LLM call points over the OpenAI API: one request each, awaited in turn."""

    client: openai.AsyncOpenAI
    model: str = "gpt-4o-mini"
    all_calls: bool = False

    @classmethod
    def at(cls, base_url: str, *, all_calls: bool = False) -> SeedLlm:
        # max_retries=0: a failed call should fail the benchmark, not hide inside SDK retries.
        client = openai.AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)
        return cls(client, all_calls=all_calls)

    async def ask(self, call_point: str, query: str, *, as_json: bool = True) -> Any:
        # The first system line names the call point, as Jipsa's LlmClient does, so the fake server
        # (tests/fake_openai.py) can answer and count each call point apart.
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": f"call_point: {call_point}\n\n부동산 상담 보조 모델입니다."},
            {"role": "user", "content": query},
        ]
        response = await self.client.chat.completions.create(
            model=self.model,
            messages=messages,
            temperature=0,
            timeout=LLM_TIMEOUT_S,
            response_format={"type": "json_object"} if as_json else omit,
        )
        content = response.choices[0].message.content or ""
        return json.loads(content) if as_json else content


Progress = Callable[[dict[str, Any]], Awaitable[None]]


async def _no_progress(_message: dict[str, Any]) -> None:
    """The seed pushed these to the WebSocket; in-process they go nowhere."""


def route_after_planning(state: SeedState) -> Literal["execute", "respond"]:
    if state["intent"] in GUIDANCE or not state["steps"]:
        return "respond"
    return "execute"


def build_graph(llm: SeedLlm | None = None, progress: Progress = _no_progress) -> StateGraph:
    """The seed's main graph; `llm=None` is rules mode (no call leaves the process)."""

    async def ask(calls: list[str], call_point: str, query: str, *, as_json: bool = True) -> Any:
        calls.append(call_point)
        return await llm.ask(call_point, query, as_json=as_json) if llm else None

    async def initialize(state: SeedState) -> SeedState:
        return {"status": "initialized", "team_results": {}, "visited": ["initialize"]}

    async def planning(state: SeedState) -> SeedState:
        await progress({"type": "planning_start", "run_id": state["run_id"]})
        calls: list[str] = []
        if llm:
            await ask(calls, "intent_analysis", state["query"])
        plan = plan_by_rules(state["query"])
        intent = plan.intent.type.value
        if llm and intent not in GUIDANCE:
            await ask(calls, "agent_selection", state["query"])
            if llm.all_calls and len(plan.steps) > 1:
                await ask(calls, "query_decomposition", state["query"])
        steps = [
            {
                "step_id": s.step_id,
                "team": s.team.value,
                "task": s.task,
                "depends_on": s.depends_on,
                "status": "pending",
            }
            for s in plan.steps
        ]
        await progress({"type": "plan_ready", "intent": intent, "execution_steps": steps})
        return {
            "status": "planned",
            "intent": intent,
            "confidence": plan.intent.confidence,
            "steps": steps,
            "visited": ["planning"],
            "llm_calls": calls,
        }

    async def search_team(step: dict[str, Any], _inputs: dict[str, Any], calls: list[str]) -> dict[str, Any]:
        if llm:
            await ask(calls, "keyword_extraction", step["task"])
            await ask(calls, "search_tool_selection", step["task"])
        return {"items": [{"title": f"{step['task']} 결과 {i}", "score": 1.0 - i / 10} for i in range(3)]}

    async def analysis_team(step: dict[str, Any], inputs: dict[str, Any], calls: list[str]) -> dict[str, Any]:
        if llm:
            await ask(calls, "analysis_tool_selection", step["task"])
            if llm.all_calls:
                await ask(calls, "market_insight", step["task"])
                await ask(calls, "insight_synthesis", step["task"])
        found = sum(len(r.get("items", [])) for r in inputs.values())
        return {"insights": [f"{step['task']}: 근거 {found}건"], "risk": "보통"}

    async def document_team(
        step: dict[str, Any], _inputs: dict[str, Any], _calls: list[str]
    ) -> dict[str, Any]:
        return {"missing_fields": ["보증금", "계약기간"]}

    teams = {"search": search_team, "analysis": analysis_team, "document": document_team}

    async def execute_teams(state: SeedState) -> SeedState:
        results: dict[str, dict[str, Any]] = {}
        steps = [dict(s) for s in state["steps"]]
        calls: list[str] = []
        for step in steps:  # plan order puts a step after the steps it depends on
            step["status"] = "in_progress"
            await progress({"type": "todo_updated", "execution_steps": steps})
            began = time.perf_counter()
            inputs = {d: results[d] for d in step["depends_on"] if d in results}
            result = await teams[step["team"]](step, inputs, calls)
            results[step["step_id"]] = {**result, "duration_ms": (time.perf_counter() - began) * 1000}
            step["status"] = "completed"
            await progress({"type": "todo_updated", "execution_steps": steps})
        return {
            "status": "executed",
            "steps": steps,
            "team_results": results,
            "visited": ["execute_teams"],
            "llm_calls": calls,
        }

    async def aggregate(state: SeedState) -> SeedState:
        results = state["team_results"]
        aggregated = {"teams": sorted({s["team"] for s in state["steps"]}), "results": len(results)}
        return {"status": "aggregated", "aggregated": aggregated, "visited": ["aggregate"]}

    async def generate_response(state: SeedState) -> SeedState:
        calls: list[str] = []
        response: dict[str, Any]
        if state["intent"] in GUIDANCE or not state.get("team_results"):
            response = {"type": "guidance", "content": GUIDANCE_TEXT}
        elif llm:
            content = await ask(calls, "response_synthesis", state["query"], as_json=False)
            response = {"type": "answer", "content": content, "data": state["aggregated"]}
        else:
            response = {"type": "answer", "content": f"{state['query']}: {len(state['team_results'])}개 결과"}
        await progress({"type": "final_response", "response": response})
        return {
            "status": "completed",
            "response": response,
            "visited": ["generate_response"],
            "llm_calls": calls,
        }

    graph = StateGraph(SeedState)
    for name, node in (
        ("initialize", initialize),
        ("planning", planning),
        ("execute_teams", execute_teams),
        ("aggregate", aggregate),
        ("generate_response", generate_response),
    ):
        graph.add_node(name, node)
    graph.add_edge(START, "initialize")
    graph.add_edge("initialize", "planning")
    graph.add_conditional_edges(
        "planning", route_after_planning, {"execute": "execute_teams", "respond": "generate_response"}
    )
    graph.add_edge("execute_teams", "aggregate")
    graph.add_edge("aggregate", "generate_response")
    graph.add_edge("generate_response", END)
    return graph


@contextlib.asynccontextmanager
async def seed_app(checkpoints: Path, llm: SeedLlm | None = None) -> AsyncIterator[CompiledStateGraph]:
    """The compiled graph over a SQLite checkpoint file, open for the block."""
    async with AsyncSqliteSaver.from_conn_string(str(checkpoints)) as saver:
        yield build_graph(llm).compile(checkpointer=saver)


async def run_seed(app: CompiledStateGraph, query: str) -> SeedState:
    """One run, start to final state; its own checkpoint thread."""
    run_id = uuid.uuid4().hex
    final = await app.ainvoke({"run_id": run_id, "query": query}, {"configurable": {"thread_id": run_id}})
    return cast(SeedState, final)


def team_work_ms(state: SeedState) -> float:
    """Time spent inside team functions (they run one after another, so all of it is critical path)."""
    return sum(r["duration_ms"] for r in state.get("team_results", {}).values())


async def main() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        async with seed_app(Path(scratch) / "checkpoints.db") as app:
            for query in ("강남구 아파트 전세 시세와 위험도 분석해줘", "안녕"):
                state = await run_seed(app, query)
                print(query, state["intent"], state["visited"], state["response"]["type"])


if __name__ == "__main__":
    asyncio.run(main())
