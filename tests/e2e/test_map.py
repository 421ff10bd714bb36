"""The map in a real Chromium: a market answer's complexes inside their 동, the choropleth's legend
against medians computed here from the shipped CSV, a table row found on the map, and nothing asked
of any host but the gateway on 127.0.0.1."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable
from urllib.parse import urlparse

import pytest
from playwright.async_api import Page, expect

from tests.e2e.conftest import SCREENSHOTS, screenshot
from tests.e2e.test_page import QUICK, ask, turn
from tests.integration.listing_helpers import read_csv

pytestmark = pytest.mark.e2e
MARKET = "송파구 아파트 전세 시세 알려줘"


Row = dict[str, str]


def csv_complexes(gu: str, deal: str, keep: Callable[[Row], bool] = lambda r: True) -> list[Row]:
    """The complexes of a 구 that count for a deal (the lower end of their asking range is known)."""
    low = "monthly_rent_min_manwon" if deal == "monthly" else f"{deal}_min_manwon"
    return [r for r in read_csv("complexes.csv") if r["gu"] == gu and r[low] and keep(r)]


def csv_medians(gu: str, deal: str, keep: Callable[[Row], bool] = lambda r: True) -> dict[str, float]:
    """호가 범위 중간값의 중앙값 per 동, by hand: the midpoint of each complex's range, then the median."""
    low, high = (
        ("monthly_rent_min_manwon", "monthly_rent_max_manwon")
        if deal == "monthly"
        else (f"{deal}_min_manwon", f"{deal}_max_manwon")
    )
    mids: dict[str, list[float]] = defaultdict(list)
    for r in csv_complexes(gu, deal, keep):
        lo = float(r[low])
        mids[r["dong"]].append((lo + float(r[high] or lo)) / 2)
    return {dong: statistics.median(m) for dong, m in mids.items()}


def at_least(column: str, bound: float) -> Callable[[Row], bool]:
    return lambda r: bool(r[column]) and float(r[column]) >= bound


def all_of(rules: tuple[Callable[[Row], bool], ...]) -> Callable[[Row], bool]:
    return lambda r: all(rule(r) for rule in rules)


def at_most(column: str, bound: float) -> Callable[[Row], bool]:
    return lambda r: bool(r[column]) and float(r[column]) <= bound


def hosts_seen(page: Page) -> list[str]:
    seen: list[str] = []
    page.context.on("request", lambda request: seen.append(request.url))
    page.on("websocket", lambda socket: seen.append(socket.url))
    return seen


async def test_a_market_answer_shows_its_complexes_inside_their_dongs(page: Page) -> None:
    seen = hosts_seen(page)
    await page.reload()  # the page's own loading counts too
    await ask(page, MARKET)
    answer = turn(page, MARKET).locator(".answer")
    the_map = answer.locator(".answer-map")
    await expect(the_map).to_have_attribute("data-state", "ready", timeout=QUICK)

    markers = the_map.locator(".marker")
    assert await markers.count() > 0
    outside = await the_map.evaluate(
        """(section) => [...section.querySelectorAll('.marker')].filter((m) => {
             const dong = [...section.querySelectorAll('path.dong')].find(
               (p) => p.dataset.dong === m.dataset.dong && p.dataset.gu === m.dataset.gu);
             return !dong || !dong.isPointInFill(new DOMPoint(+m.dataset.x, +m.dataset.y));
           }).map((m) => m.getAttribute('aria-label'))"""
    )
    assert outside == []

    expected = csv_medians("송파구", "jeonse", lambda r: r["property_type"] == "apartment")
    drawn = await the_map.evaluate(
        "(s) => [...s.querySelectorAll('path.dong')].filter((p) => p.dataset.median)"
        ".map((p) => [p.dataset.dong, +p.dataset.median, +p.dataset.band])"
    )
    assert {dong: median for dong, median, _ in drawn} == expected
    bands = await the_map.evaluate(
        "(s) => [...s.querySelectorAll('.band[data-lo]')]"
        ".map((b) => [+b.dataset.lo, +b.dataset.hi, +b.dataset.dongs])"
    )
    # The bands partition the sorted medians, cheapest first: each runs from its first median to its last.
    ordered = sorted(expected.values())
    assert len(bands) == min(5, len(set(ordered)))
    start = 0
    for lo, hi, count in bands:
        assert (lo, hi) == (ordered[start], ordered[start + count - 1])
        start += count
    assert start == len(ordered)
    for _, median, band in drawn:
        assert bands[band][0] <= median <= bands[band][1]

    row = answer.locator("table.listings tbody tr.on-map").first
    if await row.count():
        name = (await row.locator("th").inner_text()).split("\n")[0]
        await row.click()
        await expect(the_map.locator(".complex-card h5")).to_contain_text(name)
    else:
        await markers.first.hover()
        await expect(the_map.locator(".complex-card dt", has_text="세대수")).to_be_visible()
    await the_map.screenshot(path=SCREENSHOTS / "20-market-answer-map-detail.png")
    await screenshot(page, "20-market-answer-map")
    await page.set_viewport_size({"width": 390, "height": 844})
    await screenshot(page, "21-market-answer-map-phone")

    assert seen and {urlparse(url).hostname for url in seen} == {"127.0.0.1"}
