"""The shipped files read once: the complexes of the listing snapshot and the 동 boundaries."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contracts.api import ComplexPoint, MapStation, PriceRange
from services.gateway.web.maps.stations import StationMark, load_stations
from services.platform.settings import REPO_ROOT

SEED_DIR = REPO_ROOT / "infra" / "seed"  # the shipped data; the map reads nothing else

# The snapshot's columns for each deal type's range (월세: the monthly rent, as in the answers).
RANGE_COLUMNS = {
    "sale": ("sale_min_manwon", "sale_max_manwon", "sale_listing_count"),
    "jeonse": ("jeonse_min_manwon", "jeonse_max_manwon", "jeonse_listing_count"),
    "monthly": ("monthly_rent_min_manwon", "monthly_rent_max_manwon", "monthly_listing_count"),
}
SCHOOL_COLUMNS = ("elementary_schools", "middle_schools", "high_schools")


@dataclass(frozen=True)
class MapSnapshot:
    complexes: list[ComplexPoint]  # asking_manwon unset: it depends on the deal asked
    dongs: list[dict[str, Any]]  # GeoJSON features of the 동 (properties: gu, dong, code)
    stations: list[StationMark]  # by name
    listings_source: str
    boundaries_source: str
    stations_source: str

    @classmethod
    def load(cls, seed_dir: Path) -> MapSnapshot:
        with (seed_dir / "listings" / "complexes.csv").open(encoding="utf-8") as rows:
            records = list(csv.DictReader(rows))
        geo = json.loads((seed_dir / "geo" / "seoul_dongs.geojson").read_text(encoding="utf-8"))
        dated = max((r["collected_at"][:10] for r in records), default="")
        gus = [f for f in geo["features"] if f["properties"]["level"] == "gu"]
        stations, stations_source = load_stations(seed_dir / "geo" / "stations.json", gus)
        return cls(
            complexes=sorted((complex_point(r) for r in records), key=lambda c: (c.name, c.complex_id)),
            dongs=[f for f in geo["features"] if f["properties"]["level"] == "dong"],
            stations=sorted(stations, key=lambda m: m.station.name),
            listings_source=f"매물 스냅샷 {dated} (호가)",
            boundaries_source=geo["source"],
            stations_source=stations_source,
        )

    def gus(self) -> list[str]:
        return sorted({f["properties"]["gu"] for f in self.dongs})

    def stations_near(self, gus: tuple[str, ...]) -> list[MapStation]:
        """The stations inside any of these 구 or within 1.5 km of one."""
        return [m.station for m in self.stations if m.near & set(gus)]


def complex_point(r: dict[str, str]) -> ComplexPoint:
    return ComplexPoint(
        complex_id=r["complex_id"],
        name=r["name"],
        property_type=r["property_type"],
        gu=r["gu"],
        dong=r["dong"],
        lat=float(r["lat"]),
        lon=float(r["lon"]),
        households=_int(r["household_count"]),
        buildings=_int(r["dong_count"]),
        completion_ym=r["completion_ym"] or None,
        area_min_m2=_float(r["area_min_m2"]),
        area_max_m2=_float(r["area_max_m2"]),
        station=r["subway_station"] or None,
        line=r["subway_line"] or None,
        walk_min=_int(r["subway_walk_min"]),
        schools=[s for column in SCHOOL_COLUMNS for s in r[column].split(";") if s],
        ranges={deal: price for deal, cols in RANGE_COLUMNS.items() if (price := _range(r, *cols))},
        asking_manwon=None,
    )


def _range(r: dict[str, str], low: str, high: str, count: str) -> PriceRange | None:
    lo, hi = _int(r[low]), _int(r[high])
    if lo is None and hi is None:
        return None
    return PriceRange(min_manwon=lo, max_manwon=hi, listings=_int(r[count]) or 0)


def _int(cell: str) -> int | None:
    return int(float(cell)) if cell else None  # a few exports write counts as 12.0


def _float(cell: str) -> float | None:
    return float(cell) if cell else None
