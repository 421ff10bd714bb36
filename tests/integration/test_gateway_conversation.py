"""A conversation through the WebSocket with the whole system in-process (real NATS and Postgres).

A lease's missing fields answered by typing an ordinary message (the same run goes on and writes the
contract, while a new question in between is a run of its own), and the seed's protocol exactly as
DESIGN.md section 6 writes it: the approval inside `plan_ready`, `interrupt_response` (approve, modify,
reject) and `todo_skip` without run_id, and no frame the section does not name.
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
        # The answer is told in a frame section 6 names (a todo_updated), not one a client reads as a
        # request for input.
        told = next(m for m in answered if "input_received" in m)
        received = told["input_received"]
        assert (told["type"], told["run_id"]) == ("todo_updated", lease_run)
        assert received["message"] == TYPED_ANSWER
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


# DESIGN.md section 6's server -> client frames: a client written to it knows no others.
DESIGN_FRAMES = {
    "connected",
    "planning_start",
    "plan_ready",
    "execution_start",
    "todo_updated",
    "final_response",
    "error",
}
PLAIN_QUESTION = "강남구 전세 시세 알려줘"


async def test_a_client_speaking_section_6_literally_approves_edits_skips_and_rejects(store, infra) -> None:
    """DESIGN.md section 6 literally, on one socket: the client names no run anywhere and knows only the
    frames the section names. A plan that waits says so in its `plan_ready` (`requires_approval`, with
    the prompt); the client answers `interrupt_response` {action[, modified_todos]} and `todo_skip`
    {todo_id}, and the gateway acts on the session's one waiting run (or the run holding the todo)."""
    async with jipsa(store, infra) as gateway:
        session_id, token = await new_session(gateway)
        async with connected(gateway, session_id, token) as client:

            async def planned(query: str, require_approval: bool = True) -> dict:
                await client.send({"type": "query", "query": query, "require_approval": require_approval})
                return await client.until_type("plan_ready", timeout=60)

            async def answered(plan: dict) -> list[dict]:
                return await client.until(final_of(plan["run_id"]), 90)

            approve = await planned(SEVERAL)
            await client.send({"type": "interrupt_response", "action": "approve"})
            approved = await answered(approve)

            modify = await planned(SEVERAL)
            kept = [{**modify["execution_steps"][0], "task": "강남구 아파트 전세 시세만 조회"}]
            await client.send({"type": "interrupt_response", "action": "modify", "modified_todos": kept})
            modified = await answered(modify)

            skip = await planned(SEVERAL)
            skipped_id = skip["execution_steps"][-1]["step_id"]
            await client.send({"type": "todo_skip", "todo_id": skipped_id})
            await client.send({"type": "interrupt_response", "action": "approve"})
            skipped = await answered(skip)

            reject = await planned(SEVERAL)
            await client.send({"type": "interrupt_response", "action": "reject"})
            rejected = await answered(reject)

            plain = await planned(PLAIN_QUESTION, require_approval=False)
            await answered(plain)

        assert {m["type"] for m in client.received} <= DESIGN_FRAMES, client.received
        assert not [m for m in client.received if m["type"] == "error"], client.received
        for m in client.received[1:]:
            assert isinstance(m["run_id"], str) and isinstance(m["position"], int), m

        waiting = [approve, modify, skip, reject]
        for plan in waiting:
            assert plan["requires_approval"] is True and len(plan["execution_steps"]) >= 2
            assert (
                plan["approval"]["actions"] == ["approve", "modify", "reject"] and plan["approval"]["message"]
            )
            assert plan["intent"] and isinstance(plan["confidence"], float) and plan["keywords"]
            assert plan["estimated_total_time"] > 0
            told = [m["type"] for m in client.received if m.get("run_id") == plan["run_id"]]
            assert told.count("plan_ready") == 1 and told[0] == "planning_start", told
        assert (plain["requires_approval"], plain["approval"]) == (False, None)

        for finals in (approved, modified, skipped):
            assert finals[-1]["response"]["type"] == "answer"
            assert finals[-1]["run_id"] != rejected[-1]["run_id"]
        assert rejected[-1]["response"]["type"] == "guidance"
        assert not [m for m in rejected if m["type"] in ("execution_start", "todo_updated")]

    events = {plan["run_id"]: await store.read_stream(f"run-{plan['run_id']}") for plan in [*waiting, plain]}

    def of(plan: dict, event_type: str) -> list:
        return [r.event() for r in events[plan["run_id"]] if r.envelope.event_type == event_type]

    assert [e.modified_steps for e in of(approve, "PlanApproved")] == [None]
    assert {e.step_id for e in of(approve, "StepStarted")} == {
        s["step_id"] for s in approve["execution_steps"]
    }
    (edit,) = of(modify, "PlanApproved")
    assert [(s.step_id, s.task) for s in edit.modified_steps] == [(kept[0]["step_id"], kept[0]["task"])]
    assert {e.step_id for e in of(modify, "StepStarted")} == {kept[0]["step_id"]}
    assert [e.step_id for e in of(skip, "StepSkipped")] == [skipped_id]
    assert skipped_id not in {e.step_id for e in of(skip, "StepStarted")}
    assert (
        of(reject, "StepStarted") == [] and events[reject["run_id"]][-1].envelope.event_type == "PlanRejected"
    )
    assert of(plain, "PlanApprovalRequested") == []
