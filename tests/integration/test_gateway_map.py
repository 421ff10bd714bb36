"""The map's REST routes through a real uvicorn: GeoJSON of a 구's 동 with each one's median asking price
computed independently from the shipped CSV here, the complexes' cards with the map page's filters,
and plain refusals of what the routes cannot answer."""

from __future__ import annotations

import statistics
from collections import defaultdict

import httpx
import pytest

from tests.integration.gateway_helpers import Gateway
from tests.integration.listing_helpers import read_csv

pytestmark = pytest.mark.integration


def expected_medians(gu: str, deal: str) -> dict[str, float]:
    """호가 범위 중간값의 중앙값 per 동, by hand from the CSV: midpoints of each complex's range."""
    low, high = {"sale": ("sale_min", "sale_max"), "jeonse": ("jeonse_min", "jeonse_max")}[deal]
    mids: dict[str, list[float]] = defaultdict(list)
    for r in read_csv("complexes.csv"):
        if r["gu"] == gu and r[f"{low}_manwon"]:
            lo = float(r[f"{low}_manwon"])
            mids[r["dong"]].append((lo + float(r[f"{high}_manwon"] or lo)) / 2)
    return {dong: statistics.median(m) for dong, m in mids.items()}


async def test_a_gus_dongs_come_as_geojson_with_their_medians(gateway: Gateway) -> None:
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        answer = await http.get("/api/map/dongs", params={"gu": "송파구", "deal": "jeonse"})
    assert answer.status_code == 200
    collection = answer.json()
    assert collection["type"] == "FeatureCollection"
    found = {f["properties"]["dong"]: f for f in collection["features"]}
    expected = expected_medians("송파구", "jeonse")
    assert {
        d: f["properties"]["median_manwon"] for d, f in found.items() if f["properties"]["complexes"]
    } == (expected)
    assert all(f["geometry"]["type"] in ("Polygon", "MultiPolygon") for f in found.values())
    bands = collection["bands"]
    for f in found.values():
        p = f["properties"]
        if p["median_manwon"] is not None:
            band = bands[p["band"]]
            assert band["lo_manwon"] <= p["median_manwon"] <= band["hi_manwon"]
    assert "2023-09-15" in collection["source"] and "2025-10-08" in collection["source"]


async def test_a_gus_stations_come_with_its_dongs(gateway: Gateway) -> None:
    """Every station its complexes name (and the rows can place) is listed, inside the 구 or near it."""
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        songpa = (await http.get("/api/map/dongs", params={"gu": "송파구", "deal": "jeonse"})).json()
        both = (await http.get("/api/map/dongs", params={"gu": ["송파구", "서초구"], "deal": "sale"})).json()
    stations = {s["name"]: s for s in songpa["stations"]}
    assert list(stations) == sorted(stations)
    named = {r["subway_station"] for r in read_csv("complexes.csv") if r["gu"] == "송파구"}
    unplaced = {"복정역", "개포동역", "대모산입구역", "잠실나루역"}  # 2 rows or fewer in the snapshot
    assert named - unplaced <= set(stations)
    assert stations["잠실역"]["gu"] == "송파구" and stations["잠실역"]["lines"] == ["2호선", "8호선"]
    assert stations["삼성역"]["gu"] == "강남구"  # over the 탄천, but the nearest to 잠실 complexes
    assert stations["강동구청역"]["gu"] is None  # 강동구, a few hundred metres past the boundary
    assert "역삼역" not in stations and "양재역" not in stations  # far inside other 구
    assert 37.50 < stations["잠실역"]["lat"] < 37.52 and 127.09 < stations["잠실역"]["lon"] < 127.11
    assert all(s["rms_m"] < 2 and s["rows"] >= 3 for s in stations.values())
    assert set(stations) < {s["name"] for s in both["stations"]}
    assert "역 위치: 스냅샷의 단지별 역 거리로 계산" in songpa["source"]


async def test_two_gus_share_one_scale(gateway: Gateway) -> None:
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        both = (await http.get("/api/map/dongs", params={"gu": ["강남구", "서초구"], "deal": "sale"})).json()
    assert both["gus"] == ["강남구", "서초구"]
    assert {f["properties"]["gu"] for f in both["features"]} == {"강남구", "서초구"}
    medians = [f["properties"]["median_manwon"] for f in both["features"] if f["properties"]["complexes"]]
    assert sum(b["dongs"] for b in both["bands"]) == len(medians)
    assert both["bands"][0]["lo_manwon"] == min(medians) and both["bands"][-1]["hi_manwon"] == max(medians)


async def test_the_complexes_follow_the_map_pages_filters(gateway: Gateway) -> None:
    filters = {"gu": "강남구", "deal": "sale", "walk_max": 5, "households_min": 1000, "built_from": 2010}
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        answer = (await http.get("/api/map/complexes", params=filters)).json()
    expected = {
        r["complex_id"]
        for r in read_csv("complexes.csv")
        if r["gu"] == "강남구"
        and r["sale_min_manwon"]
        and r["subway_walk_min"]
        and int(r["subway_walk_min"]) <= 5
        and r["household_count"]
        and int(float(r["household_count"])) >= 1000
        and r["completion_ym"][:4] >= "2010"
    }
    assert {c["complex_id"] for c in answer["complexes"]} == expected
    assert answer["count"] == len(expected) > 0
    card = answer["complexes"][0]
    assert (
        card["ranges"]["sale"]["min_manwon"] <= card["asking_manwon"] <= card["ranges"]["sale"]["max_manwon"]
    )


async def test_what_the_map_cannot_answer_is_refused_plainly(gateway: Gateway) -> None:
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        unknown_gu = await http.get("/api/map/dongs", params={"gu": "마포구", "deal": "sale"})
        no_gu = await http.get("/api/map/dongs", params={"deal": "sale"})
        unknown_deal = await http.get("/api/map/complexes", params={"deal": "lease"})
    assert (unknown_gu.status_code, no_gu.status_code, unknown_deal.status_code) == (404, 404, 422)
    assert "송파구" in unknown_gu.json()["detail"]


async def test_a_districts_map_data_travels_compressed(gateway: Gateway) -> None:
    """The largest district's complexes and its 동 shapes, as a browser asks for them (gzip accepted)."""
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        points = await http.get("/api/map/complexes", params={"gu": "강남구", "deal": "sale"})
        shapes = await http.get("/api/map/dongs", params={"gu": "강남구", "deal": "sale"})
    for reply in (points, shapes):
        assert reply.status_code == 200 and reply.headers["content-encoding"] == "gzip"
        assert reply.json()  # httpx decodes it: the same JSON
    sent = sum(int(r.headers["content-length"]) for r in (points, shapes))
    assert sent < sum(len(r.content) for r in (points, shapes)) / 3
