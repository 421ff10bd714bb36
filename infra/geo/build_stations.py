"""Seed-time only: write infra/seed/geo/stations.json, where the map draws the subway stations.

The listing snapshot names each complex's and one-room's nearest station with its line and a
straight-line distance (subway_distance_m, whole metres), but never where the station is. Those
distances pin it down: for each station and line, the point whose distance to every row's (lat, lon)
best matches the rows' subway_distance_m, by least squares (Gauss-Newton from several starts, on a
local metric projection x = (lon - lon0)·k·cos(lat0), y = (lat - lat0)·k, k = 111,195 m a degree).

The snapshot measures from one point per line, not per station: a transfer station's rows fit one
point each per line to about a metre, but one point for the whole station only to 19-118 m (고속터미널역,
잠실역, 수서역, 양재역, 강남역 worst). So each line is solved on its own (its `platforms`), and
the station's mark is the mean of its lines' points. A line needs rows at 3 distinct places at least
(three circles fix a point; two leave two) and is dropped when another start reaches a different point
that fits about as well (rows too nearly in a line to tell); a station with no line left is skipped.

Needs nothing but the standard library; run it again whenever the listing snapshot changes:

    .venv/bin/python infra/geo/build_stations.py
"""

from __future__ import annotations

import csv
import json
import math
import statistics
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LISTINGS = ROOT / "infra" / "seed" / "listings"
SOURCES = ("complexes.csv", "one_rooms.csv")
OUT = ROOT / "infra" / "seed" / "geo" / "stations.json"
# A degree of latitude on a sphere of the mean Earth radius (6,371 km, haversine's usual radius): the
# snapshot's distances follow it. 111,320 m (the equatorial radius) fits them about 0.15% worse: line
# residuals of 0.5 m median and 1.6 m at worst against 0.36 m and 0.61 m with this one.
METRES_PER_DEGREE = 6_371_000 * math.pi / 180  # 111,195 m
MIN_PLACES = 3  # distinct (lat, lon) of a line's rows
STARTS = 12  # starting points around the nearest row, on the circle of its distance
SAME_POINT_M = 25.0  # two solutions closer than this are one
Row = tuple[float, float, float]  # lat, lon, distance in metres


def rows_by_line() -> tuple[dict[tuple[str, str], list[Row]], dict[str, str]]:
    """The rows of each (station, line), and the snapshot's date."""
    found: dict[tuple[str, str], list[Row]] = defaultdict(list)
    dated = ""
    for name in SOURCES:
        with (LISTINGS / name).open(encoding="utf-8") as rows:
            for r in csv.DictReader(rows):
                dated = max(dated, r["collected_at"][:10])
                if r["subway_station"] and r["subway_line"] and r["subway_distance_m"] and r["lat"]:
                    row = (float(r["lat"]), float(r["lon"]), float(r["subway_distance_m"]))
                    found[(r["subway_station"], r["subway_line"])].append(row)
    return found, {"snapshot": dated}


class Plane:
    """Degrees to metres and back around one origin (equirectangular: exact enough over a few km)."""

    def __init__(self, lat0: float, lon0: float) -> None:
        self.lat0, self.lon0 = lat0, lon0
        self.squash = math.cos(math.radians(lat0))

    def xy(self, lat: float, lon: float) -> tuple[float, float]:
        return (lon - self.lon0) * METRES_PER_DEGREE * self.squash, (lat - self.lat0) * METRES_PER_DEGREE

    def latlon(self, x: float, y: float) -> tuple[float, float]:
        return self.lat0 + y / METRES_PER_DEGREE, self.lon0 + x / (METRES_PER_DEGREE * self.squash)


def rms(x: float, y: float, circles: list[Row]) -> float:
    return math.sqrt(sum((math.hypot(x - cx, y - cy) - d) ** 2 for cx, cy, d in circles) / len(circles))


def gauss_newton(x: float, y: float, circles: list[Row]) -> tuple[float, float] | None:
    for _ in range(100):
        a11 = a12 = a22 = b1 = b2 = 0.0
        for cx, cy, d in circles:
            r = math.hypot(x - cx, y - cy) or 1e-9
            jx, jy, e = (x - cx) / r, (y - cy) / r, r - d
            a11, a12, a22 = a11 + jx * jx, a12 + jx * jy, a22 + jy * jy
            b1, b2 = b1 + jx * e, b2 + jy * e
        det = a11 * a22 - a12 * a12
        if abs(det) < 1e-9:
            return None
        dx, dy = (a22 * b1 - a12 * b2) / det, (a11 * b2 - a12 * b1) / det
        x, y = x - dx, y - dy
        if math.hypot(dx, dy) < 1e-4:
            return x, y
    return None


def solve(rows: list[Row]) -> dict | None:
    """The point best matching the rows' distances, or None when the rows cannot fix one."""
    if len({(lat, lon) for lat, lon, _ in rows}) < MIN_PLACES:
        return None
    plane = Plane(statistics.fmean(r[0] for r in rows), statistics.fmean(r[1] for r in rows))
    circles = [(*plane.xy(lat, lon), d) for lat, lon, d in rows]
    nearest = min(circles, key=lambda c: c[2])
    starts = [
        (nearest[0] + nearest[2] * math.cos(a), nearest[1] + nearest[2] * math.sin(a))
        for a in (2 * math.pi * k / STARTS for k in range(STARTS))
    ]
    solutions = sorted(
        (rms(*p, circles), p) for start in starts if (p := gauss_newton(*start, circles)) is not None
    )
    if not solutions:
        return None
    best, (x, y) = solutions[0]
    rivals = [s for s, p in solutions if math.dist(p, (x, y)) > SAME_POINT_M and s < best + 3.0]
    if rivals:  # a mirror image fits as well: the rows are too nearly in a line
        return None
    lat, lon = plane.latlon(x, y)
    return {"lat": round(lat, 6), "lon": round(lon, 6), "rows": len(rows), "rms_m": round(best, 2)}


def stations() -> tuple[list[dict], list[str], str]:
    found, meta = rows_by_line()
    by_station: dict[str, dict[str, list[Row]]] = defaultdict(dict)
    for (station, line), rows in found.items():
        by_station[station][line] = rows
    solved, skipped = [], []
    for name in sorted(by_station):
        lines = by_station[name]
        platforms = []
        for line in sorted(lines):
            point = solve(lines[line])
            if point is not None:
                platforms.append({"line": line, **point})
            else:
                skipped.append(f"{name} {line}: {len(lines[line])} row(s) do not fix one point")
        if not platforms:
            continue
        lat = statistics.fmean(p["lat"] for p in platforms)
        lon = statistics.fmean(p["lon"] for p in platforms)
        plane = Plane(lat, lon)
        every = [r for line in lines for r in lines[line]]
        one_point = rms(0.0, 0.0, [(*plane.xy(a, o), d) for a, o, d in every])
        solved.append(
            {
                "name": name,
                "lines": sorted(lines),
                "lat": round(lat, 6),
                "lon": round(lon, 6),
                "rows": sum(p["rows"] for p in platforms),
                # each row against its own line's point: what the fit leaves unexplained
                "rms_m": round(
                    math.sqrt(
                        sum(p["rms_m"] ** 2 * p["rows"] for p in platforms)
                        / sum(p["rows"] for p in platforms)
                    ),
                    2,
                ),
                # every row against the mark: how far a transfer station's lines lie apart
                "mark_rms_m": round(one_point, 1),
                "platforms": platforms,
            }
        )
    return solved, skipped, meta["snapshot"]


def main() -> None:
    solved, skipped, dated = stations()
    residuals = sorted(p["rms_m"] for s in solved for p in s["platforms"])
    median, worst = statistics.median(residuals), residuals[-1]
    document = {
        "source": (
            "역 위치: 스냅샷의 단지별 역 거리로 계산"
            f" (노선별 최소제곱, 잔차 RMS 중앙값 {median:.1f} m · 최대 {worst:.1f} m)"
        ),
        "method": (
            "Per station and line, the least-squares point (Gauss-Newton on a local metric projection,"
            " from several starts) whose straight-line distance to each complexes.csv and one_rooms.csv row"
            " matches its subway_distance_m; a station's mark (lat, lon) is the mean of its lines' points."
            " rms_m: each row against its own line's point; mark_rms_m: every row against the mark, which"
            " shows how far a transfer station's lines lie apart. Built by infra/geo/build_stations.py."
        ),
        "snapshot": dated,
        "residuals_m": {
            "lines_solved": len(residuals),
            "median": median,
            "max": worst,
            "note": "RMS of |distance to the point - subway_distance_m| over a line's rows; the distances"
            " are whole metres, so about 0.3 m is the floor",
        },
        "skipped": skipped,  # lines (and so stations) the rows cannot place
        "stations": solved,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    marks = sorted(s["mark_rms_m"] for s in solved)
    print(
        f"{OUT}: {len(solved)} stations ({len(residuals)} lines), skipped {skipped};"
        f" line RMS median {median} m, max {worst} m;"
        f" one point per station: median {statistics.median(marks)} m, max {marks[-1]} m"
    )


if __name__ == "__main__":
    main()
