"""The gateway against real Postgres and NATS, served by a real uvicorn, with the real Projector:
sessions and tokens, the message sequence of a run, approval, skip and cancel requests recorded as
events, bad frames, health, and `jipsa ask`."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys

import httpx
import pytest
import typer
import websockets
from psycopg_pool import AsyncConnectionPool
from typer.testing import CliRunner

from contracts.supervisor import PlanApprovalRequested
from services.ask import command as ask_command
from services.gateway.app import create_app
from services.gateway.feed.follower import Follower
from services.gateway.settings import GatewaySettings
from services.platform.bus import ensure_stream
from services.platform.eventstore import EventStore
from services.platform.servers import free_port
from services.platform.settings import REPO_ROOT
from tests.integration.bus_helpers import wait_until
from tests.integration.gateway_helpers import (
    LEGAL,
    SEARCH,
    Client,
    Gateway,
    connected,
    event_positions,
    first_of_type,
    new_session,
    projecting,
    script_for,
    serving,
    simulated_services,
)
from tests.servers import ServerUrls

pytestmark = pytest.mark.integration


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def ask(client: Client, query: str, require_approval: bool = False) -> str:
    """Send a query; the run id, from the `planning_start` the follower sends once it is projected."""
    await client.send({"type": "query", "query": query, "require_approval": require_approval})
    started = await client.until_type("planning_start")
    assert started["query"] == query
    return started["run_id"]


async def test_sessions_and_tokens(gateway: Gateway) -> None:
    session_id, token = await new_session(gateway)
    other_id, other_token = await new_session(gateway)
    assert session_id != other_id and token != other_token

    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        assert (await http.get(f"/api/sessions/{session_id}/runs")).status_code == 401
        wrong = await http.get(f"/api/sessions/{session_id}/runs", headers=bearer("not-a-token"))
        assert wrong.status_code == 401
        foreign = await http.get(f"/api/sessions/{session_id}/runs", headers=bearer(other_token))
        assert foreign.status_code == 403
        own = await http.get(f"/api/sessions/{session_id}/runs", headers=bearer(token))
        assert own.json() == {"session_id": session_id, "runs": []}
        too_big = await http.post("/api/sessions", content=b"{" + b" " * 200_000 + b"}")
        assert too_big.status_code == 413

    for bad_token in ("nope", other_token):
        with pytest.raises(websockets.ConnectionClosed) as closed:
            async with websockets.connect(gateway.socket_url(session_id, bad_token)) as refused:
                await refused.recv()
        assert closed.value.rcvd.code == 1008


async def test_a_session_reads_only_its_own_runs(gateway: Gateway) -> None:
    owner_id, owner_token = await new_session(gateway)
    stranger_id, stranger_token = await new_session(gateway)
    async with connected(gateway, owner_id, owner_token) as owner:
        run_id = await ask(owner, "전세금 인상기준은?")

    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        for path in (f"/api/runs/{run_id}", f"/api/runs/{run_id}/events", "/api/runs/no-such-run"):
            assert (await http.get(path, headers=bearer(stranger_token))).status_code == 404
        cancel = await http.post(
            f"/api/sessions/{stranger_id}/runs/{run_id}/cancel", headers=bearer(stranger_token)
        )
        assert cancel.status_code == 404
        assert (await http.get(f"/api/runs/{run_id}", headers=bearer(owner_token))).json()[
            "query"
        ] == "전세금 인상기준은?"
        stranger_runs = await http.get(f"/api/sessions/{stranger_id}/runs", headers=bearer(stranger_token))
        assert stranger_runs.json()["runs"] == []

    async with connected(gateway, stranger_id, stranger_token) as stranger:
        for frame in (
            {"type": "todo_skip", "run_id": run_id, "todo_id": "search"},
            {"type": "cancel", "run_id": run_id},
            {"type": "interrupt_response", "run_id": run_id, "action": "approve"},
        ):
            await stranger.send(frame)
            refused = await stranger.next()
            assert (refused["type"], refused["code"]) == ("error", "unknown_run")


async def test_a_run_with_two_parallel_steps(gateway: Gateway, store: EventStore) -> None:
    session_id, token = await new_session(gateway)
    async with connected(gateway, session_id, token) as client:
        run_id = await ask(client, "강남구 아파트 전세 시세와 관련 법 알려줘")
        script, query = script_for(await first_of_type(store, run_id, "QueryReceived"))
        plan = script.planned(query, SEARCH, LEGAL, strategy="parallel")
        search, legal = script.started(SEARCH, plan), script.started(LEGAL, plan)
        await store.append([plan, search, legal])
        await client.until(lambda m: m["type"] == "todo_updated")
        found = script.completed(SEARCH, search)
        await store.append([found])
        await store.append([script.completed(LEGAL, legal)])
        await store.append([script.answered(found)])
        await client.until_type("final_response")

    sequence = [m for m in client.received if m["type"] != "connected"]
    assert [m["type"] for m in sequence] == [
        "planning_start",
        "plan_ready",
        "execution_start",  # the first StepStarted
        "todo_updated",  # the second StepStarted
        "todo_updated",  # search completed
        "todo_updated",  # legal completed
        "final_response",
    ]
    positions = event_positions(sequence)
    assert positions == sorted(set(positions)) and all(m["run_id"] == run_id for m in sequence)
    plan_ready = sequence[1]
    assert (plan_ready["intent"], plan_ready["strategy"], plan_ready["mode"]) == (
        "RISK_ANALYSIS",
        "parallel",
        "llm",
    )
    assert [s["step_id"] for s in plan_ready["execution_steps"]] == ["search", "legal"]
    last_todo = sequence[-2]
    assert last_todo["progress_pct"] == 100
    assert [(s["step_id"], s["status"]) for s in last_todo["execution_steps"]] == [
        ("search", "completed"),
        ("legal", "completed"),
    ]
    answer = sequence[-1]["response"]
    assert answer["type"] == "answer" and answer["content"].startswith("강남구 아파트 전세가율")
    assert set(answer["data"]) == {
        "listings",
        "citations",
        "insights",
        "documents",
        "failed_steps",
        "metadata",
    }

    async with httpx.AsyncClient(base_url=gateway.http_url, headers=bearer(token)) as http:
        run = (await http.get(f"/api/runs/{run_id}")).json()
        events = (await http.get(f"/api/runs/{run_id}/events")).json()["events"]
        history = (await http.get(f"/api/sessions/{session_id}/runs")).json()["runs"]
    assert run["status"] == "completed" and run["todo"]["progress_pct"] == 100
    assert [e["type"] for e in events][:2] == ["QueryReceived", "PlanReady"] and len(events) == 7
    assert events[1]["causation"] == str(query.event_id)
    assert [(r["run_id"], r["status"]) for r in history] == [(run_id, "completed")]


async def approval_requested(store: EventStore, client: Client, query_text: str) -> tuple[str, dict]:
    run_id = await ask(client, query_text, require_approval=True)
    script, query = script_for(await first_of_type(store, run_id, "QueryReceived"))
    plan = script.planned(query, SEARCH, LEGAL, strategy="parallel")
    asked = script.add(PlanApprovalRequested(run_id=run_id, steps=[SEARCH, LEGAL]), plan)
    _, request = await store.append([plan, asked])
    shown = await client.until_type("plan_ready")  # the plan, shown once: with the approval inside it
    assert shown["requires_approval"] is True and shown["position"] == request.position
    return run_id, shown


async def test_plan_approval_answers_become_events(gateway: Gateway, store: EventStore) -> None:
    session_id, token = await new_session(gateway)
    async with connected(gateway, session_id, token) as client:
        run_id, request = await approval_requested(store, client, "강남구 전세 시세와 법 조항")
        assert [s["step_id"] for s in request["execution_steps"]] == ["search", "legal"]
        approval = request["approval"]
        assert approval["message"] and approval["actions"] == ["approve", "modify", "reject"]
        assert (request["intent"], request["strategy"]) == ("RISK_ANALYSIS", "parallel")
        assert [m["type"] for m in client.received].count("plan_ready") == 1
        bad_edit = [{"step_id": "legal", "task": "x", "depends_on": ["nowhere"]}]
        await client.send(
            {"type": "interrupt_response", "run_id": run_id, "action": "modify", "modified_todos": bad_edit}
        )
        assert (await client.next())["code"] == "invalid_plan"
        edited = [{**request["execution_steps"][1], "task": "주택임대차보호법 제7조 검색"}]
        await client.send(
            {"type": "interrupt_response", "run_id": run_id, "action": "modify", "modified_todos": edited}
        )
        approved = await first_of_type(store, run_id, "PlanApproved")
        assert [(s["step_id"], s["task"]) for s in approved.envelope.data["modified_steps"]] == [
            ("legal", "주택임대차보호법 제7조 검색")
        ]
        start = await client.until_type("execution_start")
        assert [s["task"] for s in start["execution_steps"]] == ["주택임대차보호법 제7조 검색"]

        plain_run, _ = await approval_requested(store, client, "그냥 승인할게요")
        await client.send({"type": "interrupt_response", "run_id": plain_run, "action": "approve"})
        assert (await first_of_type(store, plain_run, "PlanApproved")).envelope.data["modified_steps"] is None
        assert (await client.until_type("execution_start"))["run_id"] == plain_run

        rejected_run, _ = await approval_requested(store, client, "거절할 계획")
        await client.send({"type": "interrupt_response", "run_id": rejected_run, "action": "reject"})
        rejected = await first_of_type(store, rejected_run, "PlanRejected")
        assert rejected.envelope.causation_id is not None
        final = await client.until_type("final_response")
        assert (final["run_id"], final["response"]["type"]) == (rejected_run, "guidance")


async def test_skip_and_cancel_requests_become_events(gateway: Gateway, store: EventStore) -> None:
    session_id, token = await new_session(gateway)
    async with connected(gateway, session_id, token) as client:
        run_id = await ask(client, "강남구 아파트 매매 시세")
        script, query = script_for(await first_of_type(store, run_id, "QueryReceived"))
        await store.append([script.planned(query, SEARCH, LEGAL, strategy="parallel")])
        await client.until_type("plan_ready")
        await client.send({"type": "todo_skip", "run_id": run_id, "todo_id": "legal"})
        skip = await first_of_type(store, run_id, "StepSkipRequested")
        assert skip.envelope.data["step_id"] == "legal" and skip.envelope.session_id == session_id
        await client.send({"type": "cancel", "run_id": run_id, "reason": "그만"})
        assert (await first_of_type(store, run_id, "RunCancelRequested")).envelope.data["reason"] == "그만"
        by_rest = await ask(client, "REST로 취소할 질문")
    async with httpx.AsyncClient(base_url=gateway.http_url, headers=bearer(token)) as http:
        cancelled = await http.post(
            f"/api/sessions/{session_id}/runs/{by_rest}/cancel", json={"reason": "REST"}
        )
        again = await http.post(f"/api/sessions/{session_id}/runs/{run_id}/cancel", json={"reason": "또"})
    assert cancelled.status_code == 202
    assert again.status_code == 409 and "cancelled already" in again.json()["detail"]

    async def cancel_reasons(run: str) -> list[str]:
        events = await store.read_correlation(run)
        return [r.envelope.data["reason"] for r in events if r.envelope.event_type == "RunCancelRequested"]

    assert (await cancel_reasons(run_id), await cancel_reasons(by_rest)) == (["그만"], ["REST"])


BAD_FRAMES: list[tuple[str | bytes, str]] = [
    ("not json {", "invalid_json"),
    (b"\xff\xfe", "invalid_json"),
    ("[1, 2]", "not_an_object"),
    ('"query"', "not_an_object"),
    ('{"type": "shout"}', "unknown_type"),
    ('{"query": "타입 없음"}', "unknown_type"),
    ('{"type": "query"}', "invalid_frame"),
    ('{"type": "query", "query": "   "}', "invalid_frame"),
    (json.dumps({"type": "query", "query": "가" * 2001}), "invalid_frame"),
    ('{"type": "query", "query": 42}', "invalid_frame"),
    ('{"type": "query", "query": "q", "require_approval": "maybe"}', "invalid_frame"),
    ('{"type": "interrupt_response", "run_id": "r", "action": "shrug"}', "invalid_frame"),
    ('{"type": "todo_skip", "run_id": "r"}', "invalid_frame"),
    ('{"type": "resume", "after_position": -1}', "invalid_frame"),
    ('{"type": "resume", "after_position": 999999999}', "invalid_position"),
    ('{"type": "cancel", "run_id": "someone-elses"}', "unknown_run"),
    ('{"type": "query", "query": "NUL \\u0000"}', "invalid_frame"),
    ("[" * 20_000 + "]" * 20_000, "invalid_json"),
    (json.dumps({"type": "query", "query": "x", "pad": "y" * 70_000}), "frame_too_large"),
]


async def test_bad_frames_get_errors_and_the_socket_lives_on(gateway: Gateway) -> None:
    session_id, token = await new_session(gateway)
    async with connected(gateway, session_id, token) as client:
        for frame, code in BAD_FRAMES:
            await client.send(frame)
            refused = await client.next()
            assert (refused["type"], refused["code"]) == ("error", code), frame[:80]
        await client.send({"type": "ping"})
        assert (await client.next())["type"] == "pong"
        assert await ask(client, "그래도 질문은 받나요?")


async def test_healthz(gateway: Gateway, store: EventStore, pool: AsyncConnectionPool) -> None:
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        healthy = await http.get("/healthz")
    assert (healthy.status_code, healthy.json()) == (200, {"postgres": "ok", "nats": "ok", "follower": "ok"})

    nothing_listens = free_port()
    async with serving(pool, f"nats://127.0.0.1:{nothing_listens}", health_timeout_s=1.0) as no_nats:
        async with httpx.AsyncClient(base_url=no_nats.http_url) as http:
            sick = await http.get("/healthz")
    assert sick.status_code == 503
    assert sick.json()["postgres"] == "ok" and sick.json()["nats"] != "ok"


def jipsa_ask(gateway: Gateway, *args: str):
    app = typer.Typer()
    app.command()(ask_command.ask)
    return CliRunner().invoke(app, [*args, "--url", gateway.http_url, "--timeout", "30"])


async def test_jipsa_ask_json(gateway: Gateway, store: EventStore) -> None:
    async with simulated_services(store):
        # The command runs its own event loop, so it runs in a thread of its own.
        answered = await asyncio.to_thread(
            jipsa_ask, gateway, "강남구 아파트 전세 시세", "--json", "--approve"
        )
        failed = await asyncio.to_thread(jipsa_ask, gateway, "실패할 질문", "--json")
        shown = await asyncio.to_thread(jipsa_ask, gateway, "화면으로 보여줘")

    assert answered.exit_code == 0, answered.output
    result = json.loads(answered.stdout)
    assert set(result) == {"run_id", "session_id", "intent", "plan", "response", "events"}
    assert result["intent"] == {"type": "RISK_ANALYSIS", "confidence": 0.86, "entities": {}}
    assert result["plan"]["strategy"] == "parallel"
    assert [(s["step_id"], s["status"]) for s in result["plan"]["steps"]] == [
        ("search", "completed"),
        ("legal", "completed"),
    ]
    assert result["response"]["type"] == "answer" and result["response"]["answer"].startswith("강남구")
    # QueryReceived, PlanReady, PlanApprovalRequested, PlanApproved, 2 StepStarted, 2 StepCompleted,
    # ResponseReady
    assert result["events"] == 9
    assert failed.exit_code == 1, failed.output
    assert json.loads(failed.stdout)["response"]["type"] == "error"
    assert shown.exit_code == 0, shown.output
    # Not a terminal: the answer is its text as written, on a line of its own (no panel around it).
    assert "계획" in shown.stdout and "\n강남구 아파트 전세가율은 62%로 ...\n" in shown.stdout


async def test_module_serves_until_sigterm(database_url: str, server_urls: ServerUrls) -> None:
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "NATS_URL": server_urls.nats_url,
        "JIPSA_PORT": str(port),
    }
    gateway = subprocess.Popen([sys.executable, "-m", "services.gateway"], cwd=REPO_ROOT, env=env)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:

            async def healthy() -> bool:
                try:
                    return (await http.get("/healthz")).status_code == 200
                except httpx.TransportError:
                    return False

            await wait_until(healthy, what="the gateway's /healthz")
        gateway.send_signal(signal.SIGTERM)
        # uvicorn shuts down gracefully, then re-raises the signal so a supervisor sees how it ended.
        assert await asyncio.to_thread(gateway.wait, 15) in (0, -signal.SIGTERM)
    finally:
        if gateway.poll() is None:
            gateway.kill()


async def test_a_follower_that_fails_asks_for_a_fresh_process(
    pool: AsyncConnectionPool, server_urls: ServerUrls, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Crash-only: a gateway whose follower died would keep sockets that never hear of a run again."""

    async def broken(self, stop) -> None:
        raise RuntimeError("a bug in a batch")

    monkeypatch.setattr(Follower, "run", broken)
    failed = asyncio.Event()
    app = create_app(
        GatewaySettings(),
        database_url=pool.conninfo,
        nats_url=server_urls.nats_url,
        pool=pool,
        on_follower_failure=failed.set,
    )
    async with app.router.lifespan_context(app):
        await asyncio.wait_for(failed.wait(), 10)


async def test_the_gateway_publishes_what_it_appends_without_the_relay(
    pool: AsyncConnectionPool, store: EventStore, nc, infra
) -> None:
    """A question and a cancel reach the bus a hop after their commit: no relay runs here."""
    await ensure_stream(nc.jetstream(), infra)
    heard: list[tuple[str, str]] = []
    sub = await nc.jetstream().subscribe(
        f"{infra.namespace}.>", cb=lambda m: _heard(heard, m), stream=infra.stream_name
    )
    try:
        async with projecting(store), serving(pool, infra.nats_url, infra.namespace) as announcing:
            session_id, token = await new_session(announcing)
            async with connected(announcing, session_id, token) as client:
                run_id = await ask(client, "강남구 아파트 매매 시세")
                await client.send({"type": "cancel", "run_id": run_id})
                await wait_until(lambda: len(heard) == 2, what="the question and the cancel on the bus")
    finally:
        await sub.unsubscribe()
    assert heard == [("QueryReceived", run_id), ("RunCancelRequested", run_id)]


async def _heard(heard: list[tuple[str, str]], msg) -> None:
    heard.append((msg.headers["Jipsa-Event-Type"], msg.headers["Jipsa-Correlation-Id"]))
    await msg.ack()
