"""Where the map draws the subway stations: infra/seed/geo/stations.json, solved at seed time from the
listing snapshot's own distances (infra/geo/build_stations.py). Checked here against the CSV rows
themselves, with a great-circle distance of the test's own (not the builder's plane), so the shipped
positions are held to the distances they came from, not to the file's own residuals; and the 구 a
station is drawn with, from the shipped boundaries."""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from pathlib import Path

import pytest

from services.gateway.web.maps.snapshot import SEED_DIR, MapSnapshot
from services.gateway.web.maps.stations import NEAR_M, load_stations

pytestmark = pytest.mark.unit

STATIONS = json.loads((SEED_DIR / "geo" / "stations.json").read_text(encoding="utf-8"))
TOLERANCE_M = 2.5  # distances are whole metres and positions 6 decimals (~0.1 m)


def csv_rows() -> dict[tuple[str, str], list[dict[str, str]]]:
    """Every complex and one-room row by its (station, line)."""
    rows: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for name in ("complexes.csv", "one_rooms.csv"):
        with (SEED_DIR / "listings" / name).open(encoding="utf-8") as f:
            for r in csv.DictReader(f):
                if r["subway_station"] and r["subway_distance_m"]:
                    rows[(r["subway_station"], r["subway_line"])].append(r)
    return rows


def haversine_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = (
        math.sin((p2 - p1) / 2) ** 2
        + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    )
    return 2 * 6_371_000 * math.asin(math.sqrt(a))


def misses(lat: float, lon: float, rows: list[dict[str, str]]) -> list[float]:
    """How far each row's distance to (lat, lon) is from the row's subway_distance_m, in metres."""
    return [
        abs(haversine_m(lat, lon, float(r["lat"]), float(r["lon"])) - float(r["subway_distance_m"]))
        for r in rows
    ]


def test_each_solved_point_reproduces_every_rows_distance() -> None:
    rows = csv_rows()
    checked = 0
    for station in STATIONS["stations"]:
        for platform in station["platforms"]:
            mine = rows[(station["name"], platform["line"])]
            assert platform["rows"] == len(mine) >= 3, station["name"]
            worst = max(misses(platform["lat"], platform["lon"], mine))
            assert worst <= TOLERANCE_M, (station["name"], platform["line"], worst)
            checked += len(mine)
    assert checked > 2900  # nearly every row of the snapshot names a station that is placed


def test_a_one_line_stations_mark_is_its_solved_point() -> None:
    """The REST mark itself (station lat, lon) reproduces the distances where the station has one point."""
    rows = csv_rows()
    single = [s for s in STATIONS["stations"] if len(s["platforms"]) == 1]
    assert len(single) >= 45
    for station in single:
        mine = rows[(station["name"], station["platforms"][0]["line"])]
        assert max(misses(station["lat"], station["lon"], mine)) <= TOLERANCE_M, station["name"]


def test_a_transfer_stations_mark_lies_between_its_lines_points() -> None:
    """The snapshot measures a transfer station from one point per line (tens of metres apart, a few
    hundred at most): the mark is their middle, and no one point fits both lines' rows (why the lines
    are solved apart)."""
    rows = csv_rows()
    transfers = [s for s in STATIONS["stations"] if len(s["platforms"]) > 1]
    assert {"잠실역", "고속터미널역", "양재역", "교대역", "수서역"} <= {s["name"] for s in transfers}
    for station in transfers:
        apart = [
            haversine_m(station["lat"], station["lon"], p["lat"], p["lon"]) for p in station["platforms"]
        ]
        assert max(apart) < 160, station["name"]  # 고속터미널역 7호선 and 9호선: about 300 m apart
        every = [r for p in station["platforms"] for r in rows[(station["name"], p["line"])]]
        assert max(misses(station["lat"], station["lon"], every)) > TOLERANCE_M, station["name"]


def test_every_line_the_rows_can_place_is_placed() -> None:
    """A line whose rows lie at 3 places or more is in the file, or named among the skipped."""
    placed = {(s["name"], p["line"]) for s in STATIONS["stations"] for p in s["platforms"]}
    skipped = " ".join(STATIONS["skipped"])
    for (station, line), rows in csv_rows().items():
        if (station, line) not in placed:
            assert f"{station} {line}" in skipped
            if len({(r["lat"], r["lon"]) for r in rows}) >= 3:
                assert station == "사당역" and line == "2호선"  # its 3 rows fit two mirror points alike
    assert len(STATIONS["stations"]) == 62
    assert "역 거리로 계산" in STATIONS["source"]


def test_a_station_is_drawn_with_the_gu_it_lies_in_or_near() -> None:
    snapshot = MapSnapshot.load(SEED_DIR)
    by_name = {m.station.name: m for m in snapshot.stations}
    assert by_name["잠실역"].station.gu == "송파구" and by_name["잠실역"].near == {"송파구"}
    assert by_name["역삼역"].station.gu == "강남구"
    assert by_name["사당역"].station.gu is None and "서초구" in by_name["사당역"].near  # 동작구 side
    assert by_name["강동구청역"].station.gu is None and by_name["강동구청역"].near == {"송파구"}
    songpa = {s.name for s in snapshot.stations_near(("송파구",))}
    assert "역삼역" not in songpa and {"잠실역", "삼성역", "강동구청역"} <= songpa
    assert "사평역" in {s.name for s in snapshot.stations_near(("서초구", "송파구"))}


def test_near_is_measured_to_the_boundary(tmp_path: Path) -> None:
    """A square 구 2 km a side: a station 1 km outside is near it, one 2 km outside is not."""
    side = 2000 / 111_195
    square = {
        "properties": {"gu": "네모구"},
        "geometry": {
            "type": "Polygon",
            "coordinates": [
                [[127.0, 37.5], [127.0 + side, 37.5], [127.0 + side, 37.5 + side], [127.0, 37.5 + side]]
            ],
        },
    }
    north = [37.5 + side + d / 111_195 for d in (1000, 2000)]
    document = {
        "source": "test",
        "stations": [
            {"name": name, "lines": ["1호선"], "lat": lat, "lon": 127.0 + side / 2, "rows": 3, "rms_m": 0.3}
            for name, lat in (("안역", 37.5 + side / 2), ("곁역", north[0]), ("먼역", north[1]))
        ],
    }
    (tmp_path / "stations.json").write_text(json.dumps(document), encoding="utf-8")
    marks, _ = load_stations(tmp_path / "stations.json", [square])
    near = {m.station.name: (m.station.gu, bool(m.near)) for m in marks}
    assert near == {"안역": ("네모구", True), "곁역": (None, True), "먼역": (None, False)}
    assert 1000 < NEAR_M < 2000
