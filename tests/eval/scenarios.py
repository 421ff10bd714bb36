"""Scenarios: conversations played through a running gateway, as a person at the page has them, and scored
on the answer's text (tests/eval/expectations.py says exactly which text, and every expectation).

    results = await run_scenarios("http://127.0.0.1:8000", Path("tests/data/eval/scenarios.jsonl"))
    python -m tests.eval.scenarios --url http://127.0.0.1:8000 [path] [--only ID ...]

A scenario ({"id", "area", "turns": [{"query", "approve"?, "extra"?, "expect"?}], "expect", "note"}, the
format of the shared dev set) opens one session (POST /api/sessions) and one WebSocket
(/ws/{session_id}?token=...), and sends its turns in order on that socket (a closed socket is reopened and
the turn is marked as carried by another connection). A turn sends a `query` frame (with
`require_approval` when the turn says "approve", and answers the `plan_ready` that `requires_approval`
with that action) and ends at `final_response`, `error` or `input_request`; messages of runs an earlier
turn finished are ignored; "repeat_to": N repeats a turn's text up to N characters. After a turn its run,
its events and its first document (DOCX paragraphs and table cells) are read with the session's token;
after the last turn, the session's runs and /healthz.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

from tests.eval.answers import EVAL_DATA, gather_bounded, read_jsonl
from tests.eval.expectations import Conversation, Turn, check_conversation, document_ids

TURN_TIMEOUT_S = float(os.environ.get("JIPSA_SCENARIO_TIMEOUT", "90"))
SESSION_RETRIES = 6  # a gateway with its per-address session limit on answers 429 with Retry-After
DEFAULT_SET = EVAL_DATA / "scenarios.jsonl"


@dataclass
class ScenarioResult:
    id: str
    area: str
    failures: list[str]
    conversation: Conversation | None = field(default=None, repr=False)

    @property
    def passed(self) -> bool:
        return not self.failures


async def run_scenarios(base_url: str, path: Path | str = DEFAULT_SET) -> list[ScenarioResult]:
    """Every scenario of the file played against the gateway at base_url, in the file's order."""
    return await play_all(base_url, read_jsonl(Path(path)))


async def play_all(base_url: str, scenarios: list[dict[str, Any]]) -> list[ScenarioResult]:
    """A few scenarios at once, each in a session of its own, as separate people would."""
    return await gather_bounded(scenarios, lambda scenario: run_scenario(base_url, scenario))


async def run_scenario(base_url: str, scenario: dict[str, Any]) -> ScenarioResult:
    sid, area = str(scenario.get("id")), str(scenario.get("area", "?"))
    try:
        conversation = await play(base_url, scenario)
    except (OSError, httpx.HTTPError, websockets.WebSocketException, TimeoutError, ValueError) as broke:
        return ScenarioResult(sid, area, [f"conversation failed: {type(broke).__name__}: {str(broke)[:160]}"])
    return ScenarioResult(sid, area, check_conversation(scenario, conversation), conversation)


# ---------------------------------------------------------------- playing a conversation


class Player:
    """One session: its token, its HTTP client and its socket (reopened if the server closed it)."""

    def __init__(self, base_url: str, http: httpx.AsyncClient) -> None:
        self.base_url, self.http = base_url, http
        self.session_id = self.token = ""
        self.socket: Any = None
        self.connections = 0
        self.finished_runs: set[str] = set()

    async def open_session(self) -> None:
        for _ in range(SESSION_RETRIES):
            reply = await self.http.post("/api/sessions")
            if reply.status_code != 429:
                created = reply.raise_for_status().json()
                self.session_id, self.token = created["session_id"], created["token"]
                self.http.headers["authorization"] = f"Bearer {self.token}"
                return
            await asyncio.sleep(float(reply.headers.get("retry-after", "3")))
        reply.raise_for_status()

    async def connect(self) -> None:
        if self.socket is not None and self.socket.close_code is None:
            return
        ws_base = "ws" + self.base_url.removeprefix("http")
        self.socket = await websockets.connect(
            f"{ws_base}/ws/{self.session_id}?token={self.token}", max_size=2**24
        )
        self.connections += 1
        await self.receive(TURN_TIMEOUT_S)  # `connected`

    async def receive(self, timeout: float) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.socket.recv(), max(0.05, timeout))
        message = json.loads(raw)
        return message if isinstance(message, dict) else {"type": "_not_an_object"}

    async def send(self, frame: dict[str, Any]) -> None:
        await self.socket.send(json.dumps(frame, ensure_ascii=False))

    async def turn(self, spec: dict[str, Any]) -> Turn:
        turn = Turn(query=turn_query(spec))
        try:
            await self.connect()
        except (OSError, websockets.WebSocketException, TimeoutError) as refused:
            turn.problems.append(f"websocket connect failed ({type(refused).__name__})")
            return turn
        turn.socket = self.connections
        approve = spec.get("approve")
        frame = {"type": "query", "query": turn.query, **({"require_approval": True} if approve else {})}
        await self.send({**frame, **(spec.get("extra") or {})})
        try:
            await self.until_answered(turn, approve)
        except TimeoutError:
            turn.problems.append(f"no answer within {TURN_TIMEOUT_S:g} s")
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else "none"
            turn.problems.append(f"connection closed by the server (code {code})")
        if turn.final is not None and turn.run_id:
            self.finished_runs.add(turn.run_id)
        return turn

    async def until_answered(self, turn: Turn, approve: str | None) -> None:
        deadline = time.monotonic() + TURN_TIMEOUT_S
        while not turn.ended:
            message = await self.receive(deadline - time.monotonic())
            run_id = message.get("run_id")
            if run_id in self.finished_runs:
                continue
            turn.messages.append(message)
            if message.get("type") == "planning_start" or (turn.run_id is None and run_id):
                turn.run_id = run_id  # a new run begins with planning_start; a form's answer continues one
            if approve and message.get("type") == "plan_ready" and message.get("requires_approval") is True:
                await self.send({"type": "interrupt_response", "run_id": run_id, "action": approve})

    async def read_back(self, turn: Turn) -> None:
        """What the REST API says about the turn's run: its state, its events, its first document."""
        if not turn.run_id:
            return
        run = await self.http.get(f"/api/runs/{turn.run_id}")
        turn.run = run.json() if run.status_code == 200 else None
        events = await self.http.get(f"/api/runs/{turn.run_id}/events")
        turn.events = events.json().get("events") if events.status_code == 200 else None
        ids = document_ids(turn)
        if ids:
            turn.document = await self.download(ids[0])

    async def download(self, artifact_id: str) -> tuple[int, str]:
        reply = await self.http.get(f"/api/documents/{artifact_id}")
        if reply.status_code != 200:
            return reply.status_code, ""
        return 200, docx_text(reply.content) if reply.content[:2] == b"PK" else reply.text

    async def session_runs(self) -> list[str] | None:
        reply = await self.http.get(f"/api/sessions/{self.session_id}/runs")
        if reply.status_code != 200:
            return None
        return [str(r.get("run_id")) for r in reply.json().get("runs", []) if isinstance(r, dict)]

    async def healthy(self) -> bool:
        return (await self.http.get("/healthz")).status_code == 200

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()


def turn_query(spec: dict[str, Any]) -> str:
    """The turn's text; "repeat_to": N repeats it up to exactly N characters (an oversized question)."""
    text, size = str(spec.get("query", "")), spec.get("repeat_to")
    return (text * (size // len(text) + 1))[:size] if isinstance(size, int) and size > 0 and text else text


def docx_text(content: bytes) -> str:
    from docx import Document

    document = Document(io.BytesIO(content))
    cells = [cell.text for table in document.tables for row in table.rows for cell in row.cells]
    return "\n".join([p.text for p in document.paragraphs] + cells)


async def play(base_url: str, scenario: dict[str, Any]) -> Conversation:
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        player = Player(base_url, http)
        await player.open_session()
        turns = []
        try:
            for spec in scenario.get("turns") or []:
                turn = await player.turn(spec)
                await player.read_back(turn)
                turns.append(turn)
        finally:
            await player.close()
        return Conversation(turns, session_runs=await player.session_runs(), healthy=await player.healthy())


# ---------------------------------------------------------------- reporting


def by_area(results: Sequence[ScenarioResult]) -> dict[str, tuple[int, int]]:
    """area -> (passed, played), in the order areas first appear."""
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in results:
        tally[r.area][0] += r.passed
        tally[r.area][1] += 1
    return {area: (passed, played) for area, (passed, played) in tally.items()}


def summary(results: Sequence[ScenarioResult]) -> str:
    areas = ", ".join(f"{a} {p}/{n}" for a, (p, n) in by_area(results).items())
    return f"scenarios passed {sum(r.passed for r in results)}/{len(results)} (by area: {areas})"


def report_lines(results: Sequence[ScenarioResult]) -> list[str]:
    lines = []
    for r in results:
        if r.passed:
            lines.append(f"PASS {r.id} [{r.area}]")
        else:
            lines.append(f"FAIL {r.id} [{r.area}]: " + "; ".join(f[:200] for f in r.failures))
    return [*lines, summary(results)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play scenarios through a running gateway and score them.")
    parser.add_argument("path", nargs="?", default=str(DEFAULT_SET), help="a scenarios .jsonl file")
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the gateway's http base URL")
    parser.add_argument("--only", nargs="*", default=None, help="play only these scenario ids")
    args = parser.parse_args(argv)
    scenarios = [s for s in read_jsonl(Path(args.path)) if not args.only or s.get("id") in args.only]
    results = asyncio.run(play_all(args.url.rstrip("/"), scenarios))
    print("\n".join(report_lines(results)))
    return 0 if all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
