"""A person's question through the whole system: the gateway, the planner, the supervisor and the three
teams as real consumers on real NATS and Postgres, asked with the real `jipsa ask --json` client.

The four paths of DESIGN.md section 2: a greeting (no team runs), one team, several teams where analysis
is fed by search's results, and a document whose missing fields are asked for, never invented.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from contracts.values import Team
from services.analysis.bootstrap import build as analysis_build
from services.document.bootstrap import build as document_build
from services.planner.bootstrap import build as planner_build
from services.platform.bus import ConsumerPolicy
from services.platform.llm import LlmSettings
from services.platform.service import Wiring
from services.platform.team import team_subscription
from services.search.bootstrap import SearchSettings, dense_retrieval
from services.search.handlers import search_work
from services.search.read_models import load_legal_index, seed_if_empty
from services.search.tools import SearchContext, default_tools
from services.supervisor.bootstrap import build as supervisor_build
from tests.integration.bus_helpers import relay, serving_all
from tests.integration.gateway_helpers import (
    Gateway,
    awaits_approval,
    connected,
    new_session,
    projecting,
    serving,
)

pytestmark = pytest.mark.integration
FAST = ConsumerPolicy.from_infra(backoff_s=[0.05, 0.1, 0.2], ack_wait_s=10)
_LEGAL_INDEX: list = []  # analysing the corpus takes seconds: once per test session


async def search_build(pool, settings) -> Wiring:
    await seed_if_empty(pool)  # each test has a database of its own
    if not _LEGAL_INDEX:
        index = await load_legal_index(pool)
        # As the service builds it: the in-process e5 fused with BM25, its shipped vectors attached now.
        await dense_retrieval(pool, index, LlmSettings(), SearchSettings())
        _LEGAL_INDEX.append(index)
    ctx = SearchContext(pool=pool, legal=_LEGAL_INDEX[0])
    return Wiring([team_subscription(Team.SEARCH, search_work(ctx, default_tools()))])


@contextlib.asynccontextmanager
async def jipsa(store, infra, **gateway_settings) -> AsyncIterator[Gateway]:
    """The whole system in-process; `gateway_settings` override the gateway's (a load lifts its limits)."""

    builds = [relay, planner_build, supervisor_build, search_build, analysis_build, document_build]
    async with serving_all(infra, builds, FAST):
        async with (
            projecting(store),
            serving(store.pool, infra.nats_url, infra.namespace, **gateway_settings) as gateway,
        ):
            yield gateway


SEVERAL = "강남구 아파트 전세 시세와 위험도 분석해줘"
LEASE_ANSWERS = [
    "landlord_name=홍길동",
    "tenant_name=김철수",
    "address=서울특별시 강남구 역삼동 123-4 101호",
    "deposit_won=3억 5천만원",
    "down_payment_won=3500만원",
    "term_start=2026-03-01",
    "term_end=2028-02-29",
]


async def ask(gateway: Gateway, query: str, *options: str) -> tuple[int, dict]:
    process = await asyncio.create_subprocess_exec(
        str(Path(sys.executable).parent / "jipsa"),  # the console script `make install` puts in the venv
        "ask",
        "--json",
        "--url",
        gateway.http_url,
        "--timeout",
        "120",
        *options,
        query,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert out, err.decode()
    return process.returncode, json.loads(out)


async def test_the_four_paths_of_a_run(store, infra) -> None:
    async with jipsa(store, infra) as gateway:
        greeting = await ask(gateway, "안녕")
        legal = await ask(gateway, "전세금 5% 인상 제한이 언제까지인가요?")
        several = await ask(gateway, SEVERAL)
        waiting = await ask(gateway, "임대차계약서 작성해줘")
        document = await ask(gateway, "임대차계약서 작성해줘", *(f"--answer={a}" for a in LEASE_ANSWERS))

    code, run = greeting
    assert code == 0 and run["intent"]["type"] == "IRRELEVANT"
    assert run["plan"]["steps"] == [] and run["response"]["type"] == "guidance"

    code, run = legal
    assert code == 0 and run["intent"]["type"] == "LEGAL_CONSULT"
    assert "search" in {s["team"] for s in run["plan"]["steps"]}
    assert all(s["status"] == "completed" for s in run["plan"]["steps"])
    cited = [c["article_id"] for c in run["response"]["citations"]]
    assert any(a.startswith("주택임대차보호법") for a in cited), (cited, run["response"]["answer"][:500])

    code, run = several
    teams = {s["team"]: s for s in run["plan"]["steps"]}
    assert code == 0 and set(teams) >= {"search", "analysis"}
    assert teams["analysis"]["depends_on"] == [teams["search"]["step_id"]]
    assert all(s["status"] == "completed" for s in run["plan"]["steps"])
    assert run["response"]["listings"] or run["response"]["figures"]

    code, run = waiting  # nothing is invented: the run asks for the fields and waits
    assert code == 0 and run["intent"]["type"] == "CONTRACT_CREATION"
    assert [s["team"] for s in run["plan"]["steps"]] == ["document"]
    assert run["response"]["type"] == "input_required" and run["response"]["documents"] == []
    assert {"deposit_won", "landlord_name"} <= {q["field"] for q in run["response"]["questions"]}

    code, run = document  # the same run, continued with the person's answers, makes the contract
    assert code == 0 and run["response"]["type"] == "answer"
    media = sorted(d["media_type"] for d in run["response"]["documents"])
    assert any("wordprocessingml" in m for m in media), media


async def test_a_person_edits_or_rejects_the_plan_before_anything_runs(store, infra) -> None:
    """Approval through the whole system: nothing runs before the answer, an edited plan runs as edited."""
    async with jipsa(store, infra) as gateway:
        session_id, token = await new_session(gateway)
        async with connected(gateway, session_id, token) as client:
            await client.send({"type": "query", "query": SEVERAL, "require_approval": True})
            asked = (await client.until(awaits_approval, timeout=60))[-1]
            kept = [s for s in asked["execution_steps"] if s["team"] == "search"]
            edited = [{**kept[0], "task": "강남구 아파트 전세 시세만 조회", "depends_on": []}]
            await client.send(
                {
                    "type": "interrupt_response",
                    "run_id": asked["run_id"],
                    "action": "modify",
                    "modified_todos": edited,
                }
            )
            answered = await client.until_type("final_response", timeout=90)
            todos = [m for m in client.received if m["type"] in ("execution_start", "todo_updated")]
            assert answered["response"]["type"] == "answer"
            assert [s["task"] for s in todos[-1]["execution_steps"]] == ["강남구 아파트 전세 시세만 조회"]
            assert todos[-1]["execution_steps"][0]["status"] == "completed"

            await client.send({"type": "query", "query": SEVERAL, "require_approval": True})
            asked = (await client.until(awaits_approval, timeout=60))[-1]
            await client.send({"type": "interrupt_response", "run_id": asked["run_id"], "action": "reject"})
            rejected = await client.until_type("final_response", timeout=30)
            assert rejected["run_id"] == asked["run_id"] and rejected["response"]["type"] == "guidance"
    events = [r.envelope.event_type for r in await store.read_stream(f"run-{asked['run_id']}")]
    assert "StepStarted" not in events and events[-1] == "PlanRejected"


async def test_a_client_speaking_the_seed_protocol_literally_approves_rejects_and_skips(store, infra) -> None:
    """DESIGN.md section 6 as written: interrupt_response and todo_skip carry no run_id; the gateway acts
    on the session's one waiting run (or the run holding the todo), and names the runs when it cannot."""
    async with jipsa(store, infra) as gateway:
        session_id, token = await new_session(gateway)
        async with connected(gateway, session_id, token) as client:
            await client.send({"type": "query", "query": SEVERAL, "require_approval": True})
            asked = (await client.until(awaits_approval, timeout=60))[-1]
            await client.send({"type": "interrupt_response", "action": "approve"})
            answered = await client.until_type("final_response", timeout=90)
            assert answered["run_id"] == asked["run_id"] and answered["response"]["type"] == "answer"

            await client.send({"type": "query", "query": SEVERAL, "require_approval": True})
            first = (await client.until(awaits_approval, timeout=60))[-1]
            await client.send({"type": "query", "query": SEVERAL, "require_approval": True})
            second = (await client.until(awaits_approval, timeout=60))[-1]
            await client.send({"type": "interrupt_response", "action": "reject"})
            refused = await client.until_type("error", timeout=15)
            assert refused["code"] == "ambiguous_run"
            assert first["run_id"] in refused["message"] and second["run_id"] in refused["message"]
            await client.send({"type": "interrupt_response", "run_id": first["run_id"], "action": "reject"})
            await client.until(final_of(first["run_id"]), 30)
            await client.send({"type": "interrupt_response", "action": "reject"})  # one left: no run_id
            await client.until(final_of(second["run_id"]), 30)

            await client.send({"type": "todo_skip", "todo_id": "no-such-step"})
            assert (await client.until_type("error", timeout=15))["code"] == "no_such_run"
    for run in (first, second):
        events = [r.envelope.event_type for r in await store.read_stream(f"run-{run['run_id']}")]
        assert "StepStarted" not in events and events[-1] == "PlanRejected"


def final_of(run_id: str):
    return lambda m: m["type"] == "final_response" and m["run_id"] == run_id
