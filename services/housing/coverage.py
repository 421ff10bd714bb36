"""What the listings snapshot can answer: the 구 it covers and the kinds of home it lists (아파트·오피스텔
단지 and 원룸). A question about other places or kinds gets no market step that would only find nothing;
one that asks for their prices is told, once, what the data holds."""

from __future__ import annotations

from contracts.entities import PropertyType, QueryEntities
from services.housing.places import Gazetteer, default_gazetteer

LISTED_TYPES = frozenset({PropertyType.APARTMENT, PropertyType.OFFICETEL, PropertyType.ONEROOM})


def unlisted_types(entities: QueryEntities) -> list[PropertyType]:
    """The kinds of home named that the snapshot has none of, when no kind named is listed."""
    if not entities.property_types or LISTED_TYPES & set(entities.property_types):
        return []
    return list(entities.property_types)


def unlisted_gu(entities: QueryEntities, gazetteer: Gazetteer | None = None) -> list[str]:
    """The 구 named, when none of them is covered by the snapshot."""
    listed = (gazetteer or default_gazetteer()).listed_gu
    return [] if not entities.gu or listed & set(entities.gu) else list(entities.gu)


def unlisted_regions(entities: QueryEntities) -> list[str]:
    """The regions outside Seoul named ("수원", "부산"), when no place of Seoul is named beside them."""
    placed = entities.gu or entities.dong or entities.stations or entities.complexes
    return [] if placed else list(entities.regions)


def listings_serve(entities: QueryEntities, gazetteer: Gazetteer | None = None) -> bool:
    """Whether the snapshot can hold homes of the places and kinds the entities name."""
    return not (unlisted_types(entities) or unlisted_gu(entities, gazetteer) or unlisted_regions(entities))
