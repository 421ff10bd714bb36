"""The map's figures: which complexes a filter keeps, the median per 동 by the answers' convention
(호가 범위 중간값의 중앙값), the choropleth's bands, and the REST models they travel in."""

from __future__ import annotations

import csv
import statistics

import pytest
from pydantic import ValidationError

from contracts.api import ComplexPoint, DongMap, MapBand, PriceRange
from services.gateway.web.maps.figures import MapFilters, asking_price, band_of, bands, dong_figures, kept
from services.gateway.web.maps.snapshot import SEED_DIR, MapSnapshot

pytestmark = pytest.mark.unit


def point(
    name: str, dong: str, jeonse: tuple[int | None, int | None] | None, **fields: object
) -> ComplexPoint:
    ranges = {"jeonse": PriceRange(min_manwon=jeonse[0], max_manwon=jeonse[1], listings=1)} if jeonse else {}
    base: dict[str, object] = {
        "complex_id": name,
        "name": name,
        "property_type": "apartment",
        "gu": "송파구",
        "dong": dong,
        "lat": 37.5,
        "lon": 127.1,
        "households": 500,
        "buildings": 5,
        "completion_ym": "2010-01",
        "area_min_m2": 80.0,
        "area_max_m2": 110.0,
        "station": "잠실역",
        "line": "2호선",
        "walk_min": 8,
        "schools": [],
        "ranges": ranges,
        "asking_manwon": None,
    }
    return ComplexPoint.model_validate(base | fields)


def test_a_complexs_asking_price_is_the_midpoint_of_its_range() -> None:
    assert asking_price(PriceRange(min_manwon=60000, max_manwon=80000, listings=3)) == 70000
    assert asking_price(PriceRange(min_manwon=60000, max_manwon=None, listings=1)) == 60000
    assert asking_price(None) is None


def test_a_dongs_median_is_of_its_complexes_midpoints_not_of_their_ends() -> None:
    complexes = [
        point("A", "잠실동", (40000, 60000)),  # midpoint 50000
        point("B", "잠실동", (70000, 90000)),  # 80000
        point("C", "잠실동", (10000, 150000)),  # 80000: a wide range counts once, by its midpoint
        point("D", "방이동", (30000, 30000)),
        point("E", "방이동", None),  # no 전세 listed: not counted
    ]
    figures = dong_figures(kept(complexes, MapFilters(deal="jeonse")))
    assert figures[("송파구", "잠실동")].median_manwon == 80000
    assert figures[("송파구", "잠실동")].complexes == 3
    assert figures[("송파구", "방이동")].complexes == 1


def test_the_filters_keep_what_the_map_page_asks_for() -> None:
    complexes = [
        point("near", "잠실동", (50000, 60000), walk_min=3, households=3000, completion_ym="2019-02"),
        point("far", "잠실동", (50000, 60000), walk_min=15, households=3000, completion_ym="2019-02"),
        point("small", "잠실동", (50000, 60000), walk_min=3, households=100, completion_ym="2019-02"),
        point("old", "잠실동", (50000, 60000), walk_min=3, households=3000, completion_ym="1988-06"),
        point("dear", "잠실동", (90000, 120000), walk_min=3, households=3000, completion_ym="2019-02"),
    ]
    f = MapFilters(deal="jeonse", walk_max=5, households_min=1000, built_from=2000, price_max=70000)
    assert [c.name for c in kept(complexes, f)] == ["near"]
    assert kept(complexes, f)[0].asking_manwon == 55000
    # a range reaching into the bounds is kept: 9억~12억 meets "at least 11억"
    assert [c.name for c in kept(complexes, MapFilters(deal="jeonse", price_min=110000))] == ["dear"]


def test_bands_split_the_medians_into_quantiles_cheapest_first() -> None:
    medians = [31450, 40000, 41750, 50500, 52000, 53050, 56250, 57500, 65000, 73500, 80875, 83750, 135000]
    found = bands([float(m) for m in medians])
    assert len(found) == 5
    assert sum(b.dongs for b in found) == len(medians)
    assert [b.lo_manwon for b in found] == sorted(b.lo_manwon for b in found)
    assert all(b.hi_manwon < nxt.lo_manwon for b, nxt in zip(found, found[1:], strict=False))
    assert all(band_of(float(m), found) is not None for m in medians)
    assert found[-1].hi_manwon == 135000


def test_equal_medians_share_a_band_and_few_dongs_make_few_bands() -> None:
    assert [b.dongs for b in bands([1.0, 1.0, 1.0, 2.0])] == [3, 1]
    assert bands([]) == []
    assert band_of(None, bands([1.0])) is None


def test_the_shipped_snapshot_agrees_with_the_csv_median_by_median() -> None:
    snapshot = MapSnapshot.load(SEED_DIR)
    with (SEED_DIR / "listings" / "complexes.csv").open(encoding="utf-8") as rows:
        expected: dict[str, list[float]] = {}
        for r in csv.DictReader(rows):
            if r["gu"] == "서초구" and r["sale_min_manwon"]:
                mid = (float(r["sale_min_manwon"]) + float(r["sale_max_manwon"] or r["sale_min_manwon"])) / 2
                expected.setdefault(r["dong"], []).append(mid)
    figures = dong_figures(kept(snapshot.complexes, MapFilters(deal="sale", gu=("서초구",))))
    assert {d: f.median_manwon for (_, d), f in figures.items()} == {
        d: statistics.median(m) for d, m in expected.items()
    }
    assert {f["properties"]["gu"] for f in snapshot.dongs} == {"강남구", "서초구", "송파구"}


def test_the_map_models_refuse_what_geojson_would_not_carry() -> None:
    with pytest.raises(ValidationError):
        DongMap.model_validate(
            {"type": "Topology", "gus": ["송파구"], "deal": "jeonse", "source": "", "bands": []}
        )
    with pytest.raises(ValidationError):
        DongMap.model_validate({"gus": ["송파구"], "deal": "rent", "source": "", "bands": [], "features": []})
    band = MapBand(lo_manwon=1, hi_manwon=2, dongs=1)
    with pytest.raises(ValidationError):
        band.dongs = 3  # type: ignore[misc]  # answers are frozen
