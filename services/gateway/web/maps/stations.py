"""The subway stations the map marks: read from infra/seed/geo/stations.json (solved at seed time from
the listing snapshot's station distances, see infra/geo/build_stations.py), each with the 구 it lies in
and the 구 it is near (inside or within NEAR_M of the boundary: a station just over the line is still
the one that 구's complexes walk to). Plain geometry on a local metric plane: no shapely at run time."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contracts.api import MapStation

NEAR_M = 1500.0
METRES_PER_DEGREE = 6_371_000 * math.pi / 180  # on the mean Earth radius
Ring = list[tuple[float, float]]  # metres east and north of the station


@dataclass(frozen=True)
class StationMark:
    station: MapStation
    near: frozenset[str]  # the 구 whose map shows it


def load_stations(path: Path, gu_features: Iterable[dict[str, Any]]) -> tuple[list[StationMark], str]:
    """The stations with the 구 they belong to on the map, and the file's source line."""
    document = json.loads(path.read_text(encoding="utf-8"))
    shapes = [(f["properties"]["gu"], f["geometry"]) for f in gu_features]
    marks = []
    for s in document["stations"]:
        rings = {gu: _rings(geometry, s["lat"], s["lon"]) for gu, geometry in shapes}
        inside = sorted(gu for gu, rs in rings.items() if _inside(rs))
        near = {gu for gu, rs in rings.items() if gu in inside or _distance(rs) <= NEAR_M}
        station = MapStation(
            name=s["name"],
            lines=s["lines"],
            lat=s["lat"],
            lon=s["lon"],
            gu=inside[0] if inside else None,
            rows=s["rows"],
            rms_m=s["rms_m"],
        )
        marks.append(StationMark(station=station, near=frozenset(near)))
    return marks, document["source"]


def _rings(geometry: dict[str, Any], lat0: float, lon0: float) -> list[Ring]:
    """A Polygon's or MultiPolygon's rings in metres around (lat0, lon0)."""
    polygons = [geometry["coordinates"]] if geometry["type"] == "Polygon" else geometry["coordinates"]
    squash = math.cos(math.radians(lat0)) * METRES_PER_DEGREE
    return [
        [((lon - lon0) * squash, (lat - lat0) * METRES_PER_DEGREE) for lon, lat in ring]
        for polygon in polygons
        for ring in polygon
    ]


def _inside(rings: list[Ring]) -> bool:
    """Whether the origin lies inside (even-odd over every ring, so holes count out)."""
    crossings = 0
    for ring in rings:
        for (x1, y1), (x2, y2) in zip(ring, ring[1:] + ring[:1], strict=True):
            if (y1 > 0) != (y2 > 0) and x1 + (0 - y1) * (x2 - x1) / (y2 - y1) > 0:
                crossings += 1
    return crossings % 2 == 1


def _distance(rings: list[Ring]) -> float:
    """Metres from the origin to the nearest edge."""
    return min(_to_segment(a, b) for ring in rings for a, b in zip(ring, ring[1:] + ring[:1], strict=True))


def _to_segment(a: tuple[float, float], b: tuple[float, float]) -> float:
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, -(ax * dx + ay * dy) / length))
    return math.hypot(ax + t * dx, ay + t * dy)
