"""What the person said, read once, through the WebSocket with the whole system in-process (real NATS
and Postgres): an answer to our form in words ("기존 빚은 하나도 없어요", a correction made while answering)
continues the same run to its document, and a fact stated in one turn answers the next.
"""

from __future__ import annotations

import httpx
import pytest

from tests.integration.gateway_helpers import connected, new_session
from tests.integration.test_gateway_conversation import final_of
from tests.integration.test_run_end_to_end import jipsa

pytestmark = pytest.mark.integration

LOAN_CHECKLIST = (
    "주택담보대출 신청 체크리스트 작성해줘. 9억짜리 아파트 사려고 하고 연소득 8천, 집은 없어요. 서울 성동구"
)
NO_DEBT = "기존 빚은 하나도 없어요"
LEASE = (
    "임대차계약서 작성해 주세요. 임대인 박정수, 임차인 오민지, 서울 송파구 올림픽로 300 101동 1001호, "
    "보증금 3억, 계약금 3천만원"
)
TERM_AND_CORRECTION = "기간은 2027년 3월 1일부터 2년이요. 아 그리고 보증금은 2억이에요"


async def test_a_negation_answers_the_loan_form_and_the_same_run_makes_the_checklist(store, infra) -> None:
    async with jipsa(store, infra) as gateway:
        session_id, token = await new_session(gateway)
        async with connected(gateway, session_id, token) as client:
            await client.send({"type": "query", "query": LOAN_CHECKLIST})
            asked = await client.until_type("input_request", timeout=90)
            run_id = asked["run_id"]
            assert {q["field"] for q in asked["questions"]} == {"existing_debt_monthly_won"}

            await client.send({"type": "query", "query": NO_DEBT})
            answered = await client.until(final_of(run_id), 90)
    assert not [m for m in answered if m["type"] == "planning_start"], "the answer started a run"
    received = next(m for m in answered if "input_received" in m)["input_received"]
    assert received["answers"] == {"existing_debt_monthly_won": "0"}
    assert answered[-1]["response"]["data"]["documents"], "the checklist was not made"
    events = [r.envelope.event_type for r in await store.read_stream(f"run-{run_id}")]
    assert events.count("QueryReceived") == 1 and events[-1] == "ResponseReady"


async def test_a_correction_made_while_answering_the_form_is_in_the_contract(store, infra) -> None:
    async with jipsa(store, infra) as gateway:
        session_id, token = await new_session(gateway)
        async with connected(gateway, session_id, token) as client:
            await client.send({"type": "query", "query": LEASE})
            asked = await client.until_type("input_request", timeout=90)
            run_id = asked["run_id"]
            await client.send({"type": "query", "query": TERM_AND_CORRECTION})
            answered = await client.until(final_of(run_id), 90)
        documents = answered[-1]["response"]["data"]["documents"]
        markdown = next(d for d in documents if d["name"].endswith(".md"))
        async with httpx.AsyncClient(base_url=gateway.http_url) as http:
            reply = await http.get(
                f"/api/documents/{markdown['artifact_id']}", headers={"Authorization": f"Bearer {token}"}
            )
    contract = reply.raise_for_status().content.decode()
    assert "₩200,000,000" in contract and "₩300,000,000" not in contract
    assert "2027년 3월 1일" in contract


async def test_a_fact_stated_in_one_turn_answers_the_next(store, infra) -> None:
    """The rent paid now is said in the first turn only; the second asks about the raise."""
    async with jipsa(store, infra) as gateway:
        session_id, token = await new_session(gateway)
        async with connected(gateway, session_id, token) as client:
            await client.send({"type": "query", "query": "지금 반전세로 보증금 1억에 월세 40 내고 살아요"})
            first = await client.until_type("final_response", timeout=90)
            await client.send({"type": "query", "query": "집주인이 월세를 50으로 올린대요, 이거 돼요?"})
            began = await client.until_type("planning_start", timeout=30)
            assert began["run_id"] != first["run_id"]
            answer = (await client.until(final_of(began["run_id"]), 90))[-1]["response"]["content"]
    assert "42만" in answer, answer  # 40만원 × 1.05 (주택임대차보호법 제7조②)
    assert "앞서 말씀하신 보증금 1억원, 월세 40만원 기준" in answer
