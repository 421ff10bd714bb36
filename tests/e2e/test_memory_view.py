"""What Jipsa remembers, on the page in a real Chromium against the whole system: the browser becomes a
person on its first visit, facts stated in a question show in "집사가 기억하는 것", one item is forgotten,
remembering is turned off and on, and "모두 잊기" (after its confirmation) leaves the view empty and,
as offered, this browser's list of conversations too. Each
change is checked against the gateway too (GET /api/people/me/memory with the page's own token), not
only on the page. A stored person the gateway refuses is replaced, and a session kept from before
people existed still opens.
"""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import Page, expect

from tests.e2e.conftest import screenshot
from tests.integration.gateway_helpers import Gateway

pytestmark = pytest.mark.e2e
STATED = "연봉 3800이에요. 관악구 아파트 전세 알아보고 있어요"
QUICK = 30_000
SLOW = 120_000  # ms: a module's first run waits for the search team's legal index
PERSON_KEY = "jipsa.person.v1"


async def kept_person(page: Page) -> dict:
    await page.wait_for_function(f"localStorage.getItem('{PERSON_KEY}') !== null", timeout=QUICK)
    return await page.evaluate(f"JSON.parse(localStorage.getItem('{PERSON_KEY}'))")


async def remembered(gateway: Gateway, token: str) -> dict:
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        reply = await http.get("/api/people/me/memory", headers={"Authorization": f"Bearer {token}"})
        return reply.raise_for_status().json()


async def ask_and_wait(page: Page, query: str) -> None:
    await page.get_by_label("질문", exact=True).fill(query)
    await page.keyboard.press("Enter")
    turn = page.locator(".turn", has=page.locator(".bubble.user", has_text=query)).last
    await expect(turn.locator(".answer, .guidance")).to_be_visible(timeout=SLOW)


async def test_the_memory_view_shows_forgets_one_and_forgets_all(page: Page, system: Gateway) -> None:
    person = await kept_person(page)  # made on the first visit, before anything is asked
    panel = page.locator("#memory")
    await ask_and_wait(page, STATED)
    # read again as the run ended, the panel closed
    await expect(page.locator("#memory-count")).to_have_text("5", timeout=QUICK)

    await page.get_by_role("button", name="집사가 기억하는 것").click()
    await expect(panel).to_be_visible()
    groups = {
        "사실": ["연소득 3,800만원"],
        "지역·단지": ["관악구"],
        "주택 유형": ["아파트"],
        "거래 유형": ["전세"],
        "지난 대화": [STATED],
    }
    for label, values in groups.items():
        group = panel.locator(".memory-group", has=page.get_by_role("heading", name=label))
        await expect(group.locator(".memory-value")).to_have_text(values)
        await expect(group.locator("time")).to_have_text(["방금 전"])
    await expect(panel.locator(".memory-group h3")).to_have_text([f"{k}1" for k in groups])  # in this order
    await screenshot(page, "memory-01-remembered", whole=False)
    await page.set_viewport_size({"width": 390, "height": 844})  # on a phone the panel covers the page
    await screenshot(page, "memory-02-remembered-phone", whole=False)
    await page.set_viewport_size({"width": 1280, "height": 860})

    await panel.get_by_role("button", name="연소득 3,800만원 잊기").click()
    await expect(panel.locator(".memory-value", has_text="연소득")).to_have_count(0)
    await expect(panel.get_by_role("heading", name="사실")).to_have_count(0)
    kept = (await remembered(system, person["token"]))["items"]
    assert "연소득 3,800만원" not in {i["value"] for i in kept}
    await expect(page.locator("#memory-count")).to_have_text("4")

    switch = panel.get_by_role("switch", name="기억하기")
    await panel.locator("label.memory-switch").click()  # the label: the input itself is drawn as the track
    await expect(switch).not_to_be_checked()
    await expect(panel.locator(".memory-off")).to_be_visible()
    await expect(switch).to_be_enabled()
    assert (await remembered(system, person["token"]))["remembering"] is False
    await screenshot(page, "memory-03-one-forgotten-remembering-off", whole=False)
    await panel.locator("label.memory-switch").click()
    await expect(switch).to_be_checked()
    await expect(panel.locator(".memory-off")).to_have_count(0)
    await expect(switch).to_be_enabled()
    assert (await remembered(system, person["token"]))["remembering"] is True

    await panel.get_by_role("button", name="모두 잊기").click()
    confirm = panel.get_by_role("alertdialog")
    await expect(confirm).to_contain_text("되돌릴 수 없어요")
    await screenshot(page, "memory-04-forget-all-asked", whole=False)
    await confirm.get_by_role("button", name="취소").click()  # nothing is forgotten by asking
    await expect(panel.locator(".memory-item")).to_have_count(4)
    await panel.get_by_role("button", name="모두 잊기").click()
    await expect(confirm.get_by_label("이 브라우저의 대화 목록도 지우기")).to_be_checked()
    await confirm.get_by_role("button", name="모두 잊기").click()

    await expect(panel.locator(".memory-item")).to_have_count(0)
    await expect(panel.locator(".memory-empty")).to_contain_text("아직 기억하는 것이 없어요")
    await expect(panel.locator(".memory-empty")).to_contain_text("모두 잊었어요")
    await expect(page.locator("#memory-count")).to_have_text("")
    after = await remembered(system, person["token"])
    assert after["items"] == [] and after["forgotten_at"]
    await expect(page.locator("#session-list .session-open")).to_have_count(0)  # the browser's list too
    await expect(page.locator("#welcome")).to_be_visible()
    await screenshot(page, "memory-05-all-forgotten", whole=False)

    await page.get_by_role("button", name="기억 닫기").click()
    await expect(panel).to_be_hidden()
    await expect(page.get_by_role("button", name="집사가 기억하는 것")).to_be_focused()


async def test_a_refused_person_is_replaced_and_a_session_from_before_people_still_opens(
    page: Page, system: Gateway
) -> None:
    async with httpx.AsyncClient(base_url=system.http_url) as http:
        old = (await http.post("/api/sessions")).raise_for_status().json()  # a session of nobody
    kept = {**old, "title": "예전 대화", "lastPosition": None}
    await page.evaluate(
        """([key, session]) => {
             localStorage.setItem(key, JSON.stringify({person_id: "gone", token: "a-token-no-one-knows"}));
             localStorage.setItem("jipsa.sessions.v1", JSON.stringify([session]));
             localStorage.setItem("jipsa.current.v1", session.session_id);
           }""",
        [PERSON_KEY, kept],
    )
    await page.reload()
    await expect(page.locator("#connection")).to_have_attribute("data-state", "open", timeout=QUICK)
    await expect(page.locator("#session-title")).to_have_text("예전 대화")

    await page.get_by_role("button", name="집사가 기억하는 것").click()  # the refused person is replaced
    await expect(page.locator("#memory .memory-empty")).to_be_visible(timeout=QUICK)
    person = await kept_person(page)
    assert person["token"] != "a-token-no-one-knows"
    assert (await remembered(system, person["token"]))["items"] == []

    await ask_and_wait(page, "안녕")  # asked in the old session: it is nobody's, so nothing is remembered
    assert (await remembered(system, person["token"]))["items"] == []
    await page.get_by_role("button", name="새 대화").click()
    await ask_and_wait(page, "관악구 전세 시세 알려줘")  # a new session is the new person's
    await expect(page.locator("#memory .kind-place .memory-value")).to_have_text(["관악구"], timeout=QUICK)
