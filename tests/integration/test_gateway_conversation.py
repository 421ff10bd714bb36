"""A conversation through the WebSocket with the whole system in-process (real NATS and Postgres).

A lease's missing fields answered by typing an ordinary message (the same run goes on and writes the
contract, while a new question in between is a run of its own), and the seed's protocol exactly as
DESIGN.md section 6 writes it: `interrupt_response` (modify) and `todo_skip` without run_id.
"""

from __future__ import annotations

import httpx
import pytest

from tests.integration.gateway_helpers import connected, new_session
from tests.integration.test_run_end_to_end import SEVERAL, jipsa

pytestmark = pytest.mark.integration

LEASE = (
    "전세 계약서 만들어줘. 집주인은 정미경, 세입자는 저 한지훈이고 보증금은 3억5천"
    "(계약금 3천5백, 잔금 3억1천5백)이에요"
)
TYPED_ANSWER = "주소는 서울 서초구 반포대로 58, 301동 1502호이고 기간은 2026년 4월 1일부터 2년이에요"
NEW_QUESTION = "강남구 전세 시세 알려줘"


def final_of(run_id: str):
    return lambda m: m["type"] == "final_response" and m["run_id"] == run_id


async def test_a_typed_message_fills_the_lease_form_and_a_new_question_runs_on_its_own(store, infra) -> None:
    async with jipsa(store, infra) as gateway:
        session_id, token = await new_session(gateway)
        async with connected(gateway, session_id, token) as client:
            await client.send({"type": "query", "query": LEASE})
            asked = await client.until_type("input_request", timeout=90)
            lease_run = asked["run_id"]
            # The names and amounts of the question are read: only the address and the term are asked.
            assert {q["field"] for q in asked["questions"]} == {"address", "term_start", "term_end"}

            await client.send({"type": "query", "query": NEW_QUESTION})
            began = await client.until_type("planning_start", timeout=30)
            assert began["run_id"] != lease_run and began["query"] == NEW_QUESTION
            market = (await client.until(final_of(began["run_id"]), 90))[-1]
            assert market["response"]["type"] == "answer"

            await client.send({"type": "query", "query": TYPED_ANSWER})
            answered = await client.until(final_of(lease_run), 90)
        assert not [m for m in answered if m["type"] == "planning_start"], "the answer started a run"
        received = next(m for m in answered if m["type"] == "input_received")
        assert received["run_id"] == lease_run and received["message"] == TYPED_ANSWER
        assert received["answers"] == {
            "address": "서울 서초구 반포대로 58, 301동 1502호",
            "term_start": "2026-04-01",
            "term_end": "24개월",
        }
        documents = answered[-1]["response"]["data"]["documents"]
        markdown = next(d for d in documents if d["name"].endswith(".md"))
        async with httpx.AsyncClient(base_url=gateway.http_url) as http:
            reply = await http.get(
                f"/api/documents/{markdown['artifact_id']}", headers={"Authorization": f"Bearer {token}"}
            )
        contract = reply.raise_for_status().content.decode()
        for said in ("정미경", "한지훈", "반포대로 58", "삼억오천만", "2026년 4월 1일", "2028년 3월 31일"):
            assert said in contract, said
    events = [r.envelope.event_type for r in await store.read_stream(f"run-{lease_run}")]
    assert events.count("QueryReceived") == 1 and "InputProvided" in events
    assert events[-1] == "ResponseReady"


async def test_the_seed_protocol_edits_the_plan_and_skips_a_todo_without_run_id(store, infra) -> None:
    """DESIGN.md section 6 literally: `interrupt_response` {action: modify, modified_todos} and
    `todo_skip` {todo_id}, neither naming the run."""
    async with jipsa(store, infra) as gateway:
        session_id, token = await new_session(gateway)
        async with connected(gateway, session_id, token) as client:
            await client.send({"type": "query", "query": SEVERAL, "require_approval": True})
            asked = await client.until_type("interrupt_request", timeout=60)
            planned = asked["execution_steps"]
            assert len(planned) >= 2
            kept = [{**planned[0], "task": "강남구 아파트 전세 시세만 조회"}]
            await client.send({"type": "interrupt_response", "action": "modify", "modified_todos": kept})
            edited = (await client.until(final_of(asked["run_id"]), 90))[-1]
            assert edited["response"]["type"] == "answer"

            await client.send({"type": "query", "query": SEVERAL, "require_approval": True})
            second = await client.until_type("interrupt_request", timeout=60)
            skipped_id = second["execution_steps"][-1]["step_id"]
            await client.send({"type": "todo_skip", "todo_id": skipped_id})
            await client.send({"type": "interrupt_response", "action": "approve"})
            answered = await client.until(final_of(second["run_id"]), 90)
        assert not [m for m in answered if m["type"] == "error"], answered
    first_events = await store.read_stream(f"run-{asked['run_id']}")
    approved = next(r.event() for r in first_events if r.envelope.event_type == "PlanApproved")
    edits = [(s.step_id, s.task) for s in approved.modified_steps]
    assert edits == [(planned[0]["step_id"], kept[0]["task"])]
    started = {r.event().step_id for r in first_events if r.envelope.event_type == "StepStarted"}
    assert started == {planned[0]["step_id"]}
    second_events = await store.read_stream(f"run-{second['run_id']}")
    skipped = [r.event().step_id for r in second_events if r.envelope.event_type == "StepSkipped"]
    assert skipped == [skipped_id]
