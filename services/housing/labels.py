"""The Korean words a person reads for the kinds of property and deal the product names in English."""

from __future__ import annotations

from contracts.entities import DealType, PropertyType

PROPERTY_LABELS = {
    PropertyType.APARTMENT: "아파트",
    PropertyType.OFFICETEL: "오피스텔",
    PropertyType.VILLA: "빌라",
    PropertyType.ONEROOM: "원룸",
    PropertyType.HOUSE: "단독·다가구 주택",
    PropertyType.COMMERCIAL: "상가",
}
DEAL_LABELS: dict[str, str] = {
    DealType.SALE: "매매",
    DealType.JEONSE: "전세",
    DealType.MONTHLY: "월세",
    DealType.SHORT_TERM: "단기임대",
}
