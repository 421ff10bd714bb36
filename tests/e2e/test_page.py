"""The page in a real Chromium against the whole system: the four paths of DESIGN.md, approval,
skipping a todo, a dropped connection, and a server message the page cannot use.

The first test runs while the search team is still building its legal index (it does so when the
system starts), so its steps stay in progress long enough to skip one and to cut the connection.
"""

from __future__ import annotations

import json
import re

import psycopg
import pytest
from playwright.async_api import Page, expect

from tests.e2e.conftest import screenshot
from tests.integration.bus_helpers import wait_until

pytestmark = pytest.mark.e2e
LEGAL = "전세금 5% 인상 제한이 언제까지인가요?"
MARKET = "강남구 아파트 전세 시세와 위험도 분석해줘"
DOCUMENT = "임대차계약서 작성해줘"
SLOW = 120_000  # ms: the first legal search waits for the index
QUICK = 30_000
LEASE = {
    "임대인 성명": "홍길동",
    "임차인 성명": "김철수",
    "임차주택 소재지": "서울특별시 강남구 역삼동 123-4 101호",
    "보증금": "3억 5천만원",
    "계약금": "3500만원",
    "임대차 시작일(인도일)": "2026-03-01",
    "임대차 종료일": "2028-02-29",
}
INJECTION = "<img src=x onerror=alert(1)>"
# A frame as if the server had sent it, delivered to the page's open socket.
DELIVER = "data => window.__sockets.at(-1).dispatchEvent(new MessageEvent('message', {data}))"


async def ask(page: Page, query: str, *, approval: bool = False) -> None:
    toggle = page.get_by_label("승인 후 실행")
    if await toggle.is_checked() != approval:
        await page.locator(".switch").click()
    await page.get_by_label("질문", exact=True).fill(query)
    await page.keyboard.press("Enter")


def turn(page: Page, query: str):
    """The conversation turn that asked `query`."""
    return page.locator(".turn", has=page.locator(".bubble.user", has_text=query)).last


async def frames(page: Page) -> list[dict]:
    received = await page.evaluate("window.__frames")
    return [json.loads(f) for f in received]


async def test_a_dropped_connection_resumes_without_loss_or_repeat(page: Page, module_database: str) -> None:
    await screenshot(page, "01-welcome")
    market = turn(page, MARKET)
    search, analysis = (
        market.locator(".todo", has_text="시세·매물"),
        market.locator(".todo", has_text="위험도"),
    )
    async with await psycopg.AsyncConnection.connect(module_database) as hold:
        # The search step waits on this lock: the run stays in progress for as long as the test needs.
        await hold.execute("LOCK TABLE complexes IN ACCESS EXCLUSIVE MODE")
        await ask(page, MARKET)
        await expect(search.locator(".badge")).to_have_text("진행 중", timeout=QUICK)
        await ask(page, "안녕")  # the input stays usable while a run is in progress
        await expect(turn(page, "안녕").locator(".guidance")).to_be_visible(timeout=QUICK)

        await analysis.get_by_role("button", name=re.compile("건너뛰기")).click()
        await expect(analysis.locator(".badge")).to_have_text("건너뜀", timeout=QUICK)
        await screenshot(page, "02-running-todos-one-skipped")

        await page.context.set_offline(True)
        await page.evaluate("window.__sockets.at(-1).close()")
        connection = page.locator("#connection")
        await expect(connection).to_have_attribute("data-state", re.compile("waiting|reconnecting"))
        await screenshot(page, "03-connection-lost", whole=False)
        await hold.rollback()
        run_id = next(m["run_id"] for m in await frames(page) if m.get("query") == MARKET)
        await answered(hold, run_id)  # the run ends while the page is away

    await page.context.set_offline(False)
    await expect(connection).to_have_attribute("data-state", "open", timeout=QUICK)
    await expect(market.locator(".answer")).to_be_visible(timeout=QUICK)
    await expect(market.locator(".todo .badge")).to_have_text(["완료", "건너뜀"])
    received = await frames(page)
    positions = [m["position"] for m in received if m["type"] != "connected" and m.get("position")]
    assert positions == sorted(set(positions)), "a message was repeated or out of order across the reconnect"
    assert [m["type"] for m in received].count("connected") == 2
    assert [m["run_id"] for m in received if m["type"] == "final_response"].count(run_id) == 1


async def answered(conn: psycopg.AsyncConnection, run_id: str) -> None:
    async def recorded() -> bool:
        cur = await conn.execute(
            "SELECT 1 FROM events WHERE correlation_id = %s AND event_type = 'ResponseReady'", (run_id,)
        )
        found = await cur.fetchone() is not None
        await conn.rollback()
        return found

    await wait_until(recorded, timeout=QUICK / 1000, what=f"the answer of run {run_id}")


async def test_a_legal_question_plans_runs_and_cites(page: Page) -> None:
    await ask(page, LEGAL)
    legal = turn(page, LEGAL)
    await expect(legal.locator(".plan")).to_contain_text("법률 상담", timeout=QUICK)
    # The search team may still be building its legal index: the first legal answer can take a while.
    await expect(legal.locator(".answer")).to_be_visible(timeout=SLOW)
    await expect(legal.locator(".todo .badge")).to_have_text(["완료", "완료"])
    await expect(legal.locator(".progress")).to_have_attribute("aria-valuenow", "100")
    citation = legal.locator(".citation").first
    await citation.locator("summary").click()
    await expect(citation.locator(".article-text")).to_contain_text("조")
    await screenshot(page, "04-legal-answer-with-citations")


async def test_a_greeting_gets_guidance_and_starts_a_session(page: Page) -> None:
    await ask(page, "안녕")
    guidance = turn(page, "안녕").locator(".guidance")
    await expect(guidance).to_contain_text("집사")
    await expect(guidance.locator("button.example")).to_have_count(4)
    await expect(page.locator("#session-list .session-open")).to_have_text(["안녕"])
    await screenshot(page, "05-guidance")

    await page.get_by_role("button", name="안녕 이름 바꾸기").click()
    await page.get_by_label("대화 이름").fill("첫 인사")
    await page.keyboard.press("Enter")
    await page.get_by_role("button", name="새 대화").click()
    await expect(page.locator("#welcome")).to_be_visible()
    await page.get_by_role("button", name="첫 인사", exact=True).click()
    await expect(turn(page, "안녕").locator(".guidance")).to_be_visible()  # reloaded from the projections
    await page.reload()
    await expect(turn(page, "안녕").locator(".guidance")).to_be_visible()
    await page.get_by_role("button", name="첫 인사 삭제").click()
    await expect(page.locator("#session-list .session-open")).to_have_count(0)


async def test_market_figures_listings_and_chart_on_laptop_and_phone(page: Page) -> None:
    await ask(page, MARKET)
    answer = turn(page, MARKET).locator(".answer")
    await expect(answer).to_be_visible(timeout=QUICK)
    by_dong = answer.locator(".chart", has_text="동별 가격").locator(".chart-rows li")
    await expect(by_dong.first).to_have_attribute("aria-label", re.compile("중앙값"))
    await expect(answer.locator("table.figures")).to_contain_text("중앙값")
    rows = answer.locator("table.listings tbody tr")
    assert await rows.count() >= 5
    await expect(rows.first.locator("td").nth(2)).to_contain_text("평")

    await answer.get_by_role("button", name=re.compile("^가격")).click()
    await expect(answer.locator("th[aria-sort=ascending]")).to_have_count(1)
    prices = await answer.locator("table.listings tbody tr td:nth-child(3)").all_inner_texts()
    await screenshot(page, "06-market-answer")
    assert prices and prices[0] != prices[-1]

    await page.set_viewport_size({"width": 390, "height": 844})
    await screenshot(page, "07-market-answer-phone")
    await page.get_by_role("button", name="대화 목록 열기").click()
    await expect(page.locator("#sidebar")).to_be_visible()
    await page.wait_for_function("getComputedStyle(document.querySelector('#sidebar')).transform === 'none'")
    await screenshot(page, "08-phone-session-list", whole=False)


async def test_a_contract_asks_for_its_missing_fields_then_is_downloaded(page: Page) -> None:
    await ask(page, DOCUMENT)
    form = turn(page, DOCUMENT).locator("form.questions")
    await expect(form.get_by_label("보증금", exact=True)).to_be_visible(timeout=QUICK)
    await screenshot(page, "09-contract-questions")
    for label, value in LEASE.items():
        await form.get_by_label(label, exact=True).fill(value)
    await form.get_by_role("button", name="보내기").click()

    documents = turn(page, DOCUMENT).locator(".answer .documents li")
    await expect(documents.first).to_be_visible(timeout=QUICK)
    docx = documents.filter(has_text="DOCX")
    async with page.expect_download() as downloading:
        await docx.get_by_role("button", name=re.compile("내려받기")).click()
    download = await downloading.value
    assert download.suggested_filename.endswith(".docx")
    assert (await download.path()).read_bytes()[:2] == b"PK"  # a DOCX is a zip
    await screenshot(page, "10-contract-document")


async def test_a_plan_is_approved_edited_or_rejected(page: Page) -> None:
    await ask(page, MARKET, approval=True)
    first = page.locator(".turn").nth(0)
    await expect(first.locator(".approval")).to_be_visible(timeout=QUICK)
    await screenshot(page, "11-approval-asked")
    await first.get_by_role("button", name="승인", exact=True).click()
    await expect(first.locator(".answer")).to_be_visible(timeout=QUICK)

    await ask(page, MARKET, approval=True)
    second = page.locator(".turn").nth(1)
    await second.get_by_role("button", name="단계 수정").click()
    await second.get_by_role("textbox", name=re.compile("1단계")).fill("강남구 아파트 전세 시세만 조회")
    await second.get_by_role("button", name="2단계 삭제").click()
    await screenshot(page, "12-approval-editing")
    await second.get_by_role("button", name="수정한 계획으로 실행").click()
    await expect(second.locator(".answer")).to_be_visible(timeout=QUICK)
    await expect(second.locator(".todo")).to_have_count(1)
    await expect(second.locator(".todo .task")).to_have_text("강남구 아파트 전세 시세만 조회")

    await ask(page, MARKET, approval=True)
    third = page.locator(".turn").nth(2)
    await third.get_by_role("button", name="거절").click()
    await expect(third.locator(".guidance")).to_contain_text("거절", timeout=QUICK)
    await expect(third.locator(".todos")).to_have_count(0)


async def test_messages_the_page_cannot_use_are_ignored(page: Page) -> None:
    await expect(page.locator("#welcome")).to_be_visible()
    await ask(page, "안녕")
    await expect(turn(page, "안녕").locator(".guidance")).to_be_visible(timeout=QUICK)
    run_id = (await frames(page))[-1]["run_id"]
    bad = [
        "not json",
        "[1, 2]",
        json.dumps({"type": "surprise", "run_id": run_id, "position": None}),
        json.dumps({"type": "final_response", "run_id": run_id, "response": None}),
        json.dumps({"type": "todo_updated", "run_id": run_id, "execution_steps": "nope"}),
        json.dumps({"type": "plan_ready", "run_id": run_id, "execution_steps": [None, 3, {"team": {}}]}),
        json.dumps(
            {"type": "error", "run_id": None, "position": None, "message": "<img src=x onerror=alert(1)>"}
        ),
        json.dumps(
            {
                "type": "final_response",
                "run_id": "other",
                "response": {"type": "answer", "content": "<b>x</b>"},
            }
        ),
    ]
    for data in bad:
        await page.evaluate(
            "data => window.__sockets.at(-1).dispatchEvent(new MessageEvent('message', {data}))", data
        )
    await expect(page.locator(".toast")).to_contain_text("<img src=x onerror=alert(1)>")
    await expect(page.locator("img")).to_have_count(0)
    await expect(turn(page, "안녕").locator(".guidance")).to_be_visible()
    await ask(page, "안녕하세요")
    await expect(turn(page, "안녕하세요").locator(".guidance")).to_be_visible(timeout=QUICK)
    await screenshot(page, "13-after-bad-messages")


async def test_a_form_answered_in_a_todo_update_and_a_store_outage_are_shown_in_the_turn(page: Page) -> None:
    """The gateway tells a form answered by a typed message inside a `todo_updated` (`input_received`),
    and a store outage as an `error` of the run: both belong to the run's turn."""
    step = {"step_id": "lease", "team": "document", "task": "임대차계약서 작성", "depends_on": []}
    typed = "주소는 반포대로 58이에요"
    told = [
        {"type": "planning_start", "run_id": "r-e2e", "position": 900001, "query": DOCUMENT},
        {
            "type": "input_request",
            "run_id": "r-e2e",
            "position": 900002,
            "step_id": "lease",
            "questions": [{"field": "address", "label": "임차주택 소재지"}],
            "message": "주소를 알려주세요",
        },
        {
            "type": "error",
            "run_id": "r-e2e",
            "position": None,
            "code": "store_unavailable",
            "message": "일시적으로 저장소에 연결할 수 없어 잠시 후 이어갑니다",
        },
    ]
    await ask(page, "안녕")  # a session, and its socket to deliver to
    await expect(turn(page, "안녕").locator(".guidance")).to_be_visible(timeout=QUICK)
    for message in told:
        await page.evaluate(DELIVER, json.dumps(message, ensure_ascii=False))
    waiting = turn(page, DOCUMENT)
    await expect(waiting.locator("form.questions")).to_be_visible(timeout=QUICK)
    await expect(waiting.locator(".notice")).to_have_text(
        "일시적으로 저장소에 연결할 수 없어 잠시 후 이어갑니다"
    )

    answered = {
        "type": "todo_updated",
        "run_id": "r-e2e",
        "position": 900003,
        "execution_steps": [{**step, "status": "pending"}],
        "progress_pct": 0,
        "input_received": {"step_id": "lease", "answers": {"address": "반포대로 58"}, "message": typed},
    }
    await page.evaluate(DELIVER, json.dumps(answered, ensure_ascii=False))
    await expect(waiting.locator("form.questions")).to_have_count(0)
    await expect(waiting.locator(".bubble.user", has_text=typed)).to_be_visible()
    await expect(waiting.locator(".notice")).to_have_count(0)
