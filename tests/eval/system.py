"""The whole system for `make eval`: every service in this process on real NATS and Postgres (the servers
tests/servers.py finds), a fresh database, the gateway on a free port; and a person asking it questions
through the WebSocket, as the page does.

What a question yields is an `Answer`: the plan the person saw (plan_ready), the final response's
fields, and whether the run stopped to ask the person something (input_request) instead of answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

from tests.bench.compare import jipsa_system
from tests.integration.gateway_helpers import Gateway, new_session
from tests.servers import real_servers

ANSWER_TIMEOUT_S = 120.0
FINAL = {"final_response", "input_request", "error"}


@dataclass(frozen=True)
class Answer:
    query: str
    run_id: str | None
    intent: str | None
    teams: list[str]
    steps: list[dict[str, Any]]
    response_type: str  # answer | guidance | error | input_required
    content: str
    citations: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)  # the run's events, as the REST API lists them


@contextlib.asynccontextmanager
async def running_system() -> AsyncIterator[Gateway]:
    """Servers, a fresh migrated database, every service and the gateway, for the block (rules mode)."""
    with tempfile.TemporaryDirectory(prefix="jipsa-eval-") as scratch, real_servers(Path(scratch)) as urls:
        async with jipsa_system(urls, Path(scratch)) as (gateway, _store):
            yield gateway


async def ask(gateway: Gateway, query: str) -> Answer:
    """One question in a session of its own, read up to its final response or its request for input."""
    session_id, token = await new_session(gateway)
    async with websockets.connect(gateway.socket_url(session_id, token)) as socket:
        await socket.send(json.dumps({"type": "query", "query": query}))
        messages: list[dict[str, Any]] = []
        async with asyncio.timeout(ANSWER_TIMEOUT_S):
            while not messages or messages[-1]["type"] not in FINAL:
                messages.append(json.loads(await socket.recv()))
    run_id = messages[-1].get("run_id")
    return answer_of(query, messages, await run_events(gateway, token, run_id) if run_id else [])


async def run_events(gateway: Gateway, token: str, run_id: str) -> list[dict[str, Any]]:
    headers = {"authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=gateway.http_url, headers=headers) as http:
        reply = await http.get(f"/api/runs/{run_id}/events")
    return reply.raise_for_status().json()["events"]


def answer_of(query: str, messages: list[dict[str, Any]], events: list[dict[str, Any]]) -> Answer:
    plan = next((m for m in messages if m["type"] == "plan_ready"), {})
    last = messages[-1]
    steps = plan.get("execution_steps", [])
    if last["type"] == "final_response":
        response = last["response"]
        kind, content = response.get("type", "answer"), response.get("content", "")
        citations = response.get("data", {}).get("citations", [])
    elif last["type"] == "input_request":
        kind, content, citations = "input_required", json.dumps(last, ensure_ascii=False), []
    else:
        kind, content, citations = "error", str(last.get("message", "")), []
    return Answer(
        query=query,
        run_id=last.get("run_id"),
        intent=plan.get("intent"),
        teams=sorted({s["team"] for s in steps}),
        steps=steps,
        response_type=kind,
        content=content,
        citations=citations,
        messages=messages,
        events=events,
    )
