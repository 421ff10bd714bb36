"""The operator's page in a real Chromium against the whole system: runs asked through the WebSocket
appear by outcome, by team, by LLM call point and among the slowest runs with their audit timeline; a
message a real consumer parked is re-driven from the page, reaches that consumer again and is marked.

The system's model is the fake OpenAI server: the first `planning` call gets a good plan, every other
call an error the client does not retry, so the LLM panel shows calls, failures and rules fallbacks.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Locator, Page, expect

from contracts import Envelope
from services.platform.bus import connect
from services.platform.consumer import Consumer, HandlerContext, Poison, Subscription
from services.platform.db import open_pool
from services.platform.deadletters import list_dead_letters
from services.platform.eventstore import EventStore
from services.platform.settings import InfraSettings
from tests.bench.compare import planning_reply
from tests.e2e.conftest import SCREENSHOTS, screenshot
from tests.fake_openai import FakeOpenAI
from tests.integration.bus_helpers import running, wait_until
from tests.integration.gateway_helpers import Gateway, connected, new_session
from tests.integration.test_run_end_to_end import jipsa
from tests.servers import ServerUrls

pytestmark = pytest.mark.e2e
TOKEN = "operator-e2e-51c9"
MARKET = "강남구 아파트 전세 시세와 위험도 분석해줘"
GREETING = "안녕"
DRILL = "안녕하세요 집사님"  # the question the drill consumer cannot handle until it is fixed
SLOW = 120_000  # ms
QUICK = 30_000


@pytest.fixture(scope="module")
def drill_infra(module_database: str, server_urls: ServerUrls, tmp_path_factory) -> InfraSettings:
    return InfraSettings(
        DATABASE_URL=module_database,
        NATS_URL=server_urls.nats_url,
        JIPSA_NAMESPACE=f"o{uuid.uuid4().hex[:10]}",
        JIPSA_DATA_DIR=tmp_path_factory.mktemp("operator"),
    )


@pytest.fixture(scope="module")
def model() -> Iterator[FakeOpenAI]:
    """Every service reads this endpoint (and nothing a developer's shell set) while the module runs."""
    with FakeOpenAI().serve() as fake, pytest.MonkeyPatch.context() as env:
        for name in list(os.environ):
            if name.startswith(("OPENAI_", "JIPSA_LLM_", "JIPSA_EMBEDDING_")):
                env.delenv(name)
        env.setenv("OPENAI_BASE_URL", fake.base_url)
        env.setenv("OPENAI_API_KEY", "test")
        fake.script(planning_reply(MARKET), call_point="planning")
        yield fake


@pytest.fixture(scope="module")
async def system(
    module_database: str, drill_infra: InfraSettings, model: FakeOpenAI
) -> AsyncIterator[Gateway]:
    """The whole system (tests/e2e/conftest.py's), its gateway with the operator's token."""
    pool = await open_pool(module_database)
    try:
        async with jipsa(EventStore(pool), drill_infra, operator_token=TOKEN) as gateway:
            yield gateway
    finally:
        await pool.close()


class DrillConsumer:
    """A durable consumer of questions, bound as a service's is, that parks DRILL until `fixed`."""

    def __init__(self) -> None:
        self.fixed = False
        self.handled: list[Envelope] = []

    async def handle(self, ctx: HandlerContext) -> None:
        if ctx.envelope.data["query"] == DRILL:
            if not self.fixed:
                raise Poison("점검용 소비자가 아직 이 질문을 처리하지 못합니다")
            self.handled.append(ctx.envelope)


async def ask(gateway: Gateway, query: str) -> dict:
    session_id, token = await new_session(gateway)
    async with connected(gateway, session_id, token) as client:
        await client.send({"type": "query", "query": query})
        return await client.until_type("final_response", timeout=SLOW / 1000)


async def test_runs_show_on_the_operator_page_and_a_dead_letter_is_re_driven_from_it(
    page: Page, system: Gateway, drill_infra: InfraSettings, module_database: str
) -> None:
    drill = DrillConsumer()
    pool = await open_pool(module_database)
    nc = await connect(drill_infra.nats_url, "operator-drill")
    consumer = Consumer(Subscription("operator-drill", "QueryReceived", drill.handle), pool, nc, drill_infra)
    try:
        async with running(consumer):
            market = await ask(system, MARKET)
            await ask(system, GREETING)
            drilled = await ask(system, DRILL)  # the system answers; the drill consumer parks its question
            await wait_until(
                lambda: _parked(pool), timeout=QUICK / 1000, what="the drill consumer to park the question"
            )
            await _operator_page_shows_the_runs(page, drill_infra, market)
            drill.fixed = True
            await _the_dead_letter_is_re_driven_from_the_page(page, drill_infra, pool)
            await wait_until(lambda: _handled(drill), timeout=QUICK / 1000, what="the re-driven question")
    finally:
        await nc.drain()
        await pool.close()
    assert [e.correlation_id for e in drill.handled] == [drilled["run_id"]]


async def _parked(pool) -> bool:
    return bool(await list_dead_letters(pool))


async def _handled(drill: DrillConsumer) -> bool:
    return bool(drill.handled)


async def _operator_page_shows_the_runs(page: Page, infra: InfraSettings, market: dict) -> None:
    await page.goto("/operator")
    token = page.get_by_label("운영자 토큰")
    await expect(token).to_be_visible()
    await screenshot(page, "operator-01-token", whole=False)
    await token.fill("not-the-token")
    await page.get_by_role("button", name="확인").click()
    await expect(page.locator("#login-error")).to_have_text("토큰이 맞지 않습니다.", timeout=QUICK)
    await token.fill(TOKEN)
    await page.get_by_role("button", name="확인").click()

    await expect(page.locator("#runs-summary")).to_contain_text("최근 60분 3건", timeout=QUICK)
    outcomes = page.locator("#outcomes")
    await expect(_cell(_row(outcomes, "답변"), 1)).to_have_text("1")
    await expect(_cell(_row(outcomes, "안내 (인사 등)"), 1)).to_have_text("2")
    for nothing in ("일부 단계 실패한 답변", "오류 답변", "실패 (RunFailed)", "종료 전 (진행 중 포함)"):
        await expect(_cell(_row(outcomes, nothing), 1)).to_have_text("0")
    steps = page.locator("#steps")
    for team in ("검색", "분석"):
        await expect(_cell(_row(steps, team), 2)).to_have_text("0")  # none failed
        await expect(_cell(_row(steps, team), 3)).to_contain_text(" ms")
    llm = page.locator("#llm")
    # The planning call was answered; response synthesis met an error and the rules answered instead.
    await expect(_row(llm, "planning").locator("td")).to_have_text(
        ["planning", "1", "0", "0", re.compile("ms")]
    )
    await expect(_row(llm, "response_synthesis").locator("td")).to_have_text(
        ["response_synthesis", "1", "1", "1", re.compile("ms")]
    )
    await expect(_cell(_row(page.locator("#checkpoints"), "프로젝션"), 3)).to_have_text("0")
    consumers = page.locator("#consumers")
    await expect(_row(consumers, f"{infra.namespace}-planner")).to_be_visible()
    await expect(_row(consumers, f"{infra.namespace}-operator-drill")).to_be_visible()
    letter = page.locator("#letters tbody tr").first
    await expect(letter).to_contain_text("점검용 소비자가 아직 이 질문을 처리하지 못합니다")
    await expect(letter.get_by_role("button", name="재처리")).to_be_visible()
    await screenshot(page, "operator-02-overview", whole=False)
    await page.screenshot(path=_shot("operator-02-overview-full"), full_page=True)

    slow = _row(page.locator("#slowest"), MARKET)
    await slow.get_by_role("link", name="타임라인").click()
    timeline = page.locator("#timeline")
    await expect(page.locator("#timeline-run")).to_have_text(market["run_id"])
    await expect(timeline.locator("tbody tr").first).to_contain_text("QueryReceived v1")
    events = timeline.locator("tbody tr")
    await expect(events.filter(has_text="ResponseReady v1")).to_contain_text("answer:")
    await expect(events.filter(has_text="LlmCallRecorded v1").first).to_contain_text("planning")
    await page.screenshot(path=_shot("operator-03-timeline"), full_page=True)


async def _the_dead_letter_is_re_driven_from_the_page(page: Page, infra: InfraSettings, pool) -> None:
    (parked,) = await list_dead_letters(pool)
    row = page.locator(f'#letters tr[data-letter="{parked.id}"]')
    await row.get_by_role("button", name="재처리").click()
    await expect(row).to_contain_text("재처리됨", timeout=QUICK)
    await expect(row.get_by_role("button", name="재처리")).to_have_count(0)
    await page.screenshot(path=_shot("operator-04-redriven"), full_page=True)
    assert await list_dead_letters(pool) == []  # the open ones: none left


def _row(table: Locator, first_cell: str) -> Locator:
    """The table's row whose first cell says exactly this."""
    exact = table.page.locator("td:first-child", has_text=re.compile(f"^{re.escape(first_cell)}$"))
    return table.locator("tbody tr", has=exact)


def _cell(row: Locator, column: int) -> Locator:
    return row.locator("td").nth(column)


def _shot(name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"
