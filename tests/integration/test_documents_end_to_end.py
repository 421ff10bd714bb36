"""The sale contract and the loan checklist through the WebSocket with the whole system in-process (real
NATS and Postgres): the question plans the document's steps, the missing fields are asked (an
`input_request`), the person's answers fill them, and the DOCX downloaded by the session opens with
python-docx and says what was answered: amounts in words, the 거래신고법 article, the lender's figures."""

from __future__ import annotations

import io
from pathlib import Path

import httpx
import pytest
from docx import Document

from tests.integration.gateway_helpers import Client, Gateway, connected, new_session
from tests.integration.test_run_end_to_end import ask, jipsa

pytestmark = pytest.mark.integration

SALE = "아파트 매매계약서 작성해줘. 매매대금 9억 5천만원, 계약금 9천500만원, 중도금 3억 2026년 4월 15일"
SALE_ANSWERS = {
    "seller_name": "홍길동",
    "buyer_name": "김영희",
    "address": "서울특별시 마포구 아현동 123 래미안푸르지오 101동 1203호",
    "area_m2": "84.97㎡",
    "contract_date": "2026-03-20",
    "balance_date": "2026년 5월 29일",
}
LOAN = "아파트 구입 대출 신청 서류 준비해줘"
LOAN_ANSWERS = {
    "price_won": "6억",
    "income_won": "연봉 7천만원",
    "existing_debt_monthly_won": "0",
    "house_count": "무주택",
    "region": "서울 마포구",
}
RUN_S = 120


async def answered_run(client: Client, query: str, answers: dict[str, str]) -> tuple[set[str], dict, list]:
    """Ask, answer the run's questions once, and wait for its answer: (the fields asked, the final
    response, the plan's step ids)."""
    await client.send({"type": "query", "query": query})
    plan = await client.until_type("plan_ready", timeout=RUN_S)
    asked = await client.until_type("input_request", timeout=RUN_S)
    run_id = asked["run_id"]
    frame = {"run_id": run_id, "step_id": asked["step_id"], "answers": answers}
    await client.send({"type": "input_response", **frame})
    final = await client.until(lambda m: m["type"] == "final_response" and m["run_id"] == run_id, RUN_S)
    steps = [s["step_id"] for s in plan["execution_steps"]]
    return {q["field"] for q in asked["questions"]}, final[-1]["response"], steps


async def docx_text(gateway: Gateway, token: str, response: dict) -> str:
    """Every paragraph and table cell of the run's DOCX, as the session downloads it."""
    docx = next(d for d in response["data"]["documents"] if d["name"].endswith(".docx"))
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        reply = await http.get(
            f"/api/documents/{docx['artifact_id']}", headers={"Authorization": f"Bearer {token}"}
        )
    document = Document(io.BytesIO(reply.raise_for_status().content))
    cells = [c.text for t in document.tables for row in t.rows for c in row.cells]
    return "\n".join([p.text for p in document.paragraphs] + cells)


async def test_a_sale_contract_is_asked_for_then_written(store, infra) -> None:
    async with jipsa(store, infra) as gateway:
        session_id, token = await new_session(gateway)
        async with connected(gateway, session_id, token) as client:
            asked, response, steps = await answered_run(client, SALE, SALE_ANSWERS)
        text = await docx_text(gateway, token, response)

    assert steps == ["draft-sale"]
    # What the question said is read; the parties, the property and the days are asked, never invented.
    # The area is not asked (it is copied from the 등기사항증명서 at signing) but read when given.
    assert asked == set(SALE_ANSWERS) - {"area_m2"}
    assert response["type"] == "answer"
    for said in (
        "부동산매매계약서",
        "매도인(홍길동)과 매수인(김영희)",
        "금 구억오천만원정(₩950,000,000)",
        "금 오억오천오백만원정(₩555,000,000)은 2026년 5월 29일에 지불한다",  # 잔금 = 9.5억 − 0.95억 − 3억
        "부동산 거래신고 등에 관한 법률 제3조①",
        "기한: 2026년 4월 19일까지",
    ):
        assert said in text, said
    cited = {c["article_id"] for c in response["data"]["citations"]}
    assert "부동산_거래신고_등에_관한_법률/제3조" in cited


async def test_a_loan_checklist_is_asked_for_then_written_from_the_loan_analyses(store, infra) -> None:
    async with jipsa(store, infra) as gateway:
        session_id, token = await new_session(gateway)
        async with connected(gateway, session_id, token) as client:
            asked, response, steps = await answered_run(client, LOAN, LOAN_ANSWERS)
        text = await docx_text(gateway, token, response)

    assert steps == [
        "search-loan",
        "ask-loan-applicant",
        "simulate-loan",
        "match-policy",
        "prepare-loan-checklist",
    ]
    assert asked == set(LOAN_ANSWERS)
    assert response["type"] == "answer"
    for said in (
        "대출 신청 준비 체크리스트",
        "6억원",
        "무주택",
        "대출 가능 금액",  # the simulator's limit, computed from the answers
        "LTV 40%",
        "부동산거래계약 신고필증",
        "은행(주택도시기금 수탁은행)이 신용·소득·담보 심사로 정하며",
    ):
        assert said in text, said


async def test_jipsa_ask_answers_the_sale_contracts_questions_and_saves_its_files(
    store, infra, tmp_path
) -> None:
    answers = [f"--answer={field}={value}" for field, value in SALE_ANSWERS.items()]
    async with jipsa(store, infra) as gateway:
        code, run = await ask(gateway, SALE, *answers, f"--save={tmp_path}")

    assert code == 0 and run["response"]["type"] == "answer"
    saved = sorted(Path(p).name for p in run["response"]["saved"])
    assert saved == sorted(d["name"] for d in run["response"]["documents"])
    assert saved == ["부동산매매계약서_김영희_2026-03-20.docx", "부동산매매계약서_김영희_2026-03-20.md"]
    contract = (tmp_path / saved[1]).read_text(encoding="utf-8")
    assert "금 구억오천만원정(₩950,000,000)" in contract and "권장 특약" in contract
    cells = [c.text for t in Document(str(tmp_path / saved[0])).tables for r in t.rows for c in r.cells]
    assert "매수인" in cells and "김영희" in cells
