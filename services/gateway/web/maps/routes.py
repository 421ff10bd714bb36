"""GET /api/map/dongs and /api/map/complexes: open routes (the snapshot is public; no session needed)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request, status

from contracts.api import ComplexPoints, DongFeature, DongMap, DongProperties, Geometry, MapDeal
from services.gateway.web.maps.figures import MapFilters, band_of, bands, dong_figures, kept
from services.gateway.web.maps.snapshot import MapSnapshot
from services.gateway.web.rest import PlainRefusals

router = APIRouter(route_class=PlainRefusals)  # a 422 that does not echo the input, as /api's
Many = Annotated[list[str], Query(max_length=50)]


def snapshot_of(request: Request) -> MapSnapshot:
    return request.app.state.map_snapshot


SnapshotDep = Annotated[MapSnapshot, Depends(snapshot_of)]


def map_filters(
    deal: MapDeal = "sale",
    gu: Many = [],  # noqa: B006  # FastAPI copies a Query default per request
    dong: Many = [],  # noqa: B006
    property_type: Many = [],  # noqa: B006
    complex_id: Many = [],  # noqa: B006
    price_min: Annotated[int | None, Query(ge=0, description="만원")] = None,
    price_max: Annotated[int | None, Query(ge=0, description="만원")] = None,
    area_min: Annotated[float | None, Query(ge=0, description="㎡, supply area")] = None,
    area_max: Annotated[float | None, Query(ge=0, description="㎡, supply area")] = None,
    households_min: Annotated[int | None, Query(ge=0, description="세대수 at least")] = None,
    built_from: Annotated[int | None, Query(ge=1900, le=2100, description="준공 year at or after")] = None,
    walk_max: Annotated[int | None, Query(ge=0, le=120, description="minutes to the station at most")] = None,
) -> MapFilters:
    return MapFilters(
        deal=deal,
        gu=tuple(gu),
        dong=tuple(dong),
        property_type=tuple(property_type),
        complex_id=tuple(complex_id),
        price_min=price_min,
        price_max=price_max,
        area_min=area_min,
        area_max=area_max,
        households_min=households_min,
        built_from=built_from,
        walk_max=walk_max,
    )


FiltersDep = Annotated[MapFilters, Depends(map_filters)]


@router.get("/api/map/complexes")
async def map_complexes(snapshot: SnapshotDep, filters: FiltersDep) -> ComplexPoints:
    """The complexes listing the deal that pass the filters, with their cards' fields."""
    found = kept(snapshot.complexes, filters)
    return ComplexPoints(
        deal=filters.deal,  # type: ignore[arg-type]  # validated as MapDeal by map_filters
        source=snapshot.listings_source,
        count=len(found),
        complexes=found,
    )


@router.get("/api/map/dongs")
async def map_dongs(snapshot: SnapshotDep, filters: FiltersDep) -> DongMap:
    """The 구's 동 as GeoJSON (`gu` once or more), each with its complexes' count and median asking price
    (the same filters as /api/map/complexes apply; `dong` and `complex_id` narrow the figures, never
    the polygons). `stations` are the subway stations inside the 구 or within 1.5 km of it, placed by
    the snapshot's own station distances."""
    if not filters.gu or not set(filters.gu) <= set(snapshot.gus()):
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"a 구 of {', '.join(snapshot.gus())} is required")
    figures = dong_figures(kept(snapshot.complexes, filters))  # once per request, not per 동
    found = bands([f.median_manwon for f in figures.values() if f.median_manwon is not None])
    features = []
    for shape in snapshot.dongs:
        p = shape["properties"]
        if p["gu"] not in filters.gu:
            continue
        figure = figures.get((p["gu"], p["dong"]))
        median = figure.median_manwon if figure else None
        properties = DongProperties(
            gu=p["gu"],
            dong=p["dong"],
            code=p["code"],
            complexes=figure.complexes if figure else 0,
            median_manwon=median,
            band=band_of(median, found),
        )
        features.append(DongFeature(properties=properties, geometry=Geometry(**shape["geometry"])))
    return DongMap(
        gus=sorted(set(filters.gu)),
        deal=filters.deal,  # type: ignore[arg-type]
        source=(
            f"경계: {snapshot.boundaries_source}. 가격: {snapshot.listings_source}."
            f" {snapshot.stations_source}"
        ),
        bands=found,
        features=features,
        stations=snapshot.stations_near(filters.gu),
    )
