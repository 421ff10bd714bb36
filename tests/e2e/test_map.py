"""The map in a real Chromium: a market answer's complexes inside their 동, the choropleth's legend
against medians computed here from the shipped CSV, a table row found on the map, the subway stations
drawn where the CSV's station distances put them; the map page (/map),
whose filters change its list, its markers and its 동 colours alike (against the CSV again), whose
district data stays small, and whose card asks about a complex in the conversation; and nothing asked
of any host but the gateway on 127.0.0.1."""

from __future__ import annotations

import math
import re
import statistics
from collections import defaultdict
from collections.abc import Callable
from urllib.parse import unquote, urlparse

import pytest
from playwright.async_api import Locator, Page, Response, expect

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


def haversine_m(a: tuple[float, float], b: tuple[float, float]) -> float:
    (lat1, lon1), (lat2, lon2) = (tuple(map(math.radians, p)) for p in (a, b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6_371_000 * math.asin(math.sqrt(h))


async def stations_fit_the_csv(section: Locator) -> set[str]:
    """The station marks of a drawn map, checked against the CSV: each complex's own station is marked,
    and on the map a marker lies as far from its (one-line) station as its row's subway_distance_m.
    The map's metres per SVG unit come from two markers' latitudes and longitudes in the CSV."""
    drawn = await section.evaluate(
        """(s) => [[...s.querySelectorAll('.marker')].map((m) => [m.dataset.id, +m.dataset.x, +m.dataset.y]),
                   [...s.querySelectorAll('.station')].map(
                     (m) => [m.dataset.name, m.dataset.lines, +m.dataset.x, +m.dataset.y])]"""
    )
    markers, stations = drawn
    rows = {r["complex_id"]: r for r in read_csv("complexes.csv")}
    at = {name: (x, y) for name, _, x, y in stations}
    one_line = {name for name, lines, _, _ in stations if "·" not in lines}
    unplaced = {"복정역", "개포동역", "대모산입구역", "잠실나루역"}  # 2 rows or fewer in the snapshot
    named = {rows[i]["subway_station"] for i, _, _ in markers} - {""}  # a few complexes name none
    assert named - unplaced <= set(at)

    def where(r: Row) -> tuple[float, float]:
        return float(r["lat"]), float(r["lon"])

    first = markers[0]
    far = max(markers, key=lambda m: math.dist(m[1:], first[1:]))
    metres_per_unit = haversine_m(where(rows[first[0]]), where(rows[far[0]])) / math.dist(far[1:], first[1:])
    checked = 0
    for complex_id, x, y in markers:
        r = rows[complex_id]
        if r["subway_station"] in one_line:
            on_map = math.dist((x, y), at[r["subway_station"]]) * metres_per_unit
            assert abs(on_map - float(r["subway_distance_m"])) <= 5, (
                r["name"],
                on_map,
                r["subway_distance_m"],
            )
            checked += 1
    assert checked >= len(markers) / 3
    return set(at)


async def show(section: Locator) -> None:
    """Scroll the conversation (not the window) to a section's top, for a screenshot of it in the page."""
    await section.evaluate(
        """(s) => { const scroller = s.closest('.scroller');
                   const offset = s.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
                   scroller.scrollTop += offset - 12; }"""
    )


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

    # The stations: small marks where the snapshot's distances put them, named on hover.
    stations = await stations_fit_the_csv(the_map)
    assert {"잠실역", "석촌역", "문정역"} <= stations
    assert await the_map.locator(".station-label").count() > 0  # names where they fit
    await the_map.locator(".station[data-name='강동구청역']").hover()  # over the boundary, in 강동구
    await expect(the_map.locator(".station-card h5")).to_contain_text("강동구청역")
    await expect(the_map.locator(".station-card dd", has_text="8호선")).to_be_visible()

    row = answer.locator("table.listings tbody tr.on-map").first
    if await row.count():
        name = (await row.locator("th").inner_text()).split("\n")[0]
        await row.click()
        await expect(the_map.locator(".complex-card h5")).to_contain_text(name)
    else:
        await markers.first.hover()
        await expect(the_map.locator(".complex-card dt", has_text="세대수")).to_be_visible()
    await show(the_map)
    await screenshot(page, "20-market-answer-map-detail", whole=False)
    await screenshot(page, "20-market-answer-map")
    await page.set_viewport_size({"width": 390, "height": 844})
    await screenshot(page, "21-market-answer-map-phone")
    await show(the_map)
    await screenshot(page, "21-market-answer-map-phone-detail", whole=False)
    # A phone keeps the marks but not their names (a third of the size): a tap names one.
    await expect(the_map.locator(".station-label").first).to_be_hidden()
    await the_map.locator(".station[data-name='강동구청역']").click()
    await expect(the_map.locator(".station-card h5")).to_contain_text("강동구청역")

    assert seen and {urlparse(url).hostname for url in seen} == {"127.0.0.1"}


async def drawn_map(page: Page) -> tuple[list[str], list[str], dict[str, float]]:
    """What the map page shows once it is ready: the list's complexes, the markers', the 동 medians."""
    await expect(page.locator("#map-side")).to_have_attribute("data-state", "ready", timeout=QUICK)
    return await page.evaluate(
        """() => [
          [...document.querySelectorAll('#complex-list .complex-item')].map((li) => li.dataset.id),
          [...document.querySelectorAll('#map-side .marker')].map((m) => m.dataset.id),
          Object.fromEntries([...document.querySelectorAll('#map-side path.dong')]
            .filter((p) => p.dataset.median).map((p) => [p.dataset.dong, +p.dataset.median])),
        ]"""
    )


async def test_the_map_page_filters_change_its_list_and_its_markers(page: Page) -> None:
    seen = hosts_seen(page)
    responses: list[Response] = []
    page.on("response", lambda response: responses.append(response))
    await page.reload()
    await page.get_by_role("link", name="지도").click()  # the main page's way to the map page
    await expect(page).to_have_url(re.compile(r"/map"))

    # The first view is the largest district and deal of the snapshot (강남구 매매): its data stays small.
    listed, marked, _ = await drawn_map(page)
    assert (
        sorted(listed) == sorted(marked) == sorted(r["complex_id"] for r in csv_complexes("강남구", "sale"))
    )
    sizes = {urlparse(r.url).path: len(await r.body()) for r in responses if "/api/map/" in r.url}
    assert set(sizes) == {"/api/map/complexes", "/api/map/dongs"}
    assert sum(sizes.values()) < 450_000, sizes  # bytes on the wire, uncompressed
    assert {"역삼역", "삼성역", "선릉역"} <= await stations_fit_the_csv(page.locator("#map-side"))

    await page.locator("#gu").select_option("송파구")
    await page.locator("#deal label", has_text="전세").click()
    listed, marked, medians = await drawn_map(page)
    everything = csv_complexes("송파구", "jeonse")
    assert sorted(listed) == sorted(marked) == sorted(r["complex_id"] for r in everything)
    assert medians == csv_medians("송파구", "jeonse")
    await expect(page.locator("#count")).to_have_text(str(len(everything)))

    # Each filter narrows the list, the markers and the 동 medians alike, as the CSV says it should.
    steps = [
        ("#households_min", "500", at_least("household_count", 500)),
        ("#walk_max", "10", at_most("subway_walk_min", 10)),
        ("#built_from", "2000", lambda r: bool(r["completion_ym"]) and int(r["completion_ym"][:4]) >= 2000),
    ]
    rules: list[Callable[[Row], bool]] = []
    counts = [len(everything)]
    for selector, value, rule in steps:
        rules.append(rule)
        keep = all_of(tuple(rules))
        await page.locator(selector).select_option(value)
        listed, marked, medians = await drawn_map(page)
        kept = sorted(r["complex_id"] for r in csv_complexes("송파구", "jeonse", keep))
        assert sorted(listed) == sorted(marked) == kept, selector
        assert medians == csv_medians("송파구", "jeonse", keep), selector
        counts.append(len(kept))
    assert counts == sorted(counts, reverse=True) and 0 < counts[-1] < counts[0], counts

    # A price bound in 억: 전세 up to 8억 keeps the complexes whose range starts at or below it.
    await page.locator("#price_max").fill("8")
    listed, marked, _ = await drawn_map(page)
    cheap = sorted(
        r["complex_id"]
        for r in csv_complexes(
            "송파구", "jeonse", lambda r: keep(r) and int(r["jeonse_min_manwon"]) <= 80_000
        )
    )
    assert sorted(listed) == sorted(marked) == cheap
    await page.locator("#price_max").fill("")

    # The filters live in the address: a reload shows the same map.
    listed_before, _, _ = await drawn_map(page)
    await page.reload()
    listed, marked, _ = await drawn_map(page)
    assert sorted(listed) == sorted(marked) == sorted(listed_before)

    first = page.locator("#complex-list .complex-item").first
    name = await first.get_attribute("data-name")
    await first.locator("button").click()
    card = page.locator("#map-side .complex-card")
    await expect(card.locator("h5")).to_contain_text(name)
    await expect(
        page.locator(f"#map-side .marker.picked[data-id='{await first.get_attribute('data-id')}']")
    ).to_have_count(1)
    await screenshot(page, "22-map-page", whole=False)
    await page.locator("#map-side").screenshot(path=SCREENSHOTS / "22-map-page-map.png")
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.screenshot(path=SCREENSHOTS / "23-map-page-phone.png", full_page=True)
    await page.set_viewport_size({"width": 1280, "height": 860})

    # One click asks about the complex in the main page's conversation.
    await card.get_by_role("button", name=re.compile("시세와 위험도")).click()
    question = f"송파구 {name} 전세 시세와 위험도"
    await expect(page.locator(".bubble.user", has_text=question)).to_be_visible(timeout=QUICK)
    assert "ask=" not in unquote(page.url)  # asked once: a reload does not ask again
    answer = turn(page, question).locator(".answer")
    await expect(answer).to_contain_text(name, timeout=QUICK)
    await screenshot(page, "24-map-page-question-asked")

    assert seen and {urlparse(url).hostname for url in seen} == {"127.0.0.1"}
