"""contracts.compat finds each kind of breaking change and lets compatible ones through."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, create_model

from contracts.compat import breaking_changes

pytestmark = pytest.mark.contract


def listing(extra: Literal["forbid", "ignore"] = "forbid", **fields: Any) -> dict[str, Any]:
    """The schema of a tiny `Listing` (매물) model with these (type, default) fields; `...` = required."""
    return create_model("Listing", __config__=ConfigDict(extra=extra), **fields).model_json_schema()


def test_an_unchanged_schema_is_compatible() -> None:
    schema = listing(deposit_krw=(int, ...), complex_name=(str | None, None))
    assert breaking_changes(schema, schema) == []


def test_an_added_optional_property_is_compatible() -> None:
    published = listing(deposit_krw=(int, ...))
    current = listing(deposit_krw=(int, ...), monthly_rent_krw=(int | None, None))
    assert breaking_changes(published, current) == []


def test_widening_is_compatible() -> None:
    published = listing(
        area_m2=(int, ...),
        dong=(str, Field(max_length=20)),
        kind=(Literal["전세", "매매"], ...),
        floor=(int, ...),
    )
    current = listing(
        area_m2=(float, ...),
        dong=(str, Field(max_length=50)),
        kind=(Literal["전세", "월세", "매매"], ...),
        floor=(int | None, ...),
    )
    assert breaking_changes(published, current) == []


def test_a_removed_property_breaks() -> None:
    published = listing(deposit_krw=(int, ...), monthly_rent_krw=(int | None, None))
    current = listing(deposit_krw=(int, ...))
    assert breaking_changes(published, current) == ["Listing.monthly_rent_krw: property removed"]


def test_a_changed_type_breaks() -> None:
    published = listing(deposit_krw=(str, ...))
    current = listing(deposit_krw=(int, ...))
    assert breaking_changes(published, current) == [
        "Listing.deposit_krw: type changed from string to integer"
    ]


def test_a_narrowed_type_breaks() -> None:
    published = listing(area_m2=(float, ...), dong=(str | None, None))
    current = listing(area_m2=(int, ...), dong=(str, "역삼동"))
    assert breaking_changes(published, current) == [
        "Listing.area_m2: type changed from number to integer",
        "Listing.dong: no longer accepts null",
    ]


def test_a_newly_required_property_breaks() -> None:
    published = listing(deposit_krw=(int, ...), floor=(int | None, None))
    current = listing(deposit_krw=(int, ...), floor=(int | None, ...), built_year=(int, ...))
    assert breaking_changes(published, current) == [
        "Listing.floor: newly required",
        "Listing.built_year: newly required",
    ]


def test_a_removed_enum_value_breaks() -> None:
    published = listing(kind=(Literal["전세", "월세", "매매"], ...))
    current = listing(kind=(Literal["전세", "매매"], ...))
    assert breaking_changes(published, current) == ["Listing.kind: enum value '월세' removed"]


def test_a_changed_const_breaks() -> None:
    published = listing(schema_version=(Literal[1], 1))
    current = listing(schema_version=(Literal[2], 2))
    assert breaking_changes(published, current) == ["Listing.schema_version: const changed from 1 to 2"]


def test_tightened_additional_properties_break() -> None:
    published = listing(extra="ignore", deposit_krw=(int, ...), details=(dict[str, Any], {}))
    current = listing(extra="forbid", deposit_krw=(int, ...), details=(dict[str, int], {}))
    assert breaking_changes(published, current) == [
        "Listing.details: additionalProperties tightened, their values are now constrained",
        "Listing: additionalProperties tightened, unknown properties are now rejected",
    ]


def test_tightened_bounds_and_formats_break() -> None:
    published = listing(
        dong=(str, Field(max_length=50)), deposit_krw=(int, Field(ge=0)), listed_on=(str, ...)
    )
    current = listing(
        dong=(str, Field(max_length=20)),
        deposit_krw=(int, Field(gt=0)),
        listed_on=(str, Field(pattern=r"^\d{4}-")),
    )
    assert breaking_changes(published, current) == [
        "Listing.dong: maxLength was 50, now 20",
        "Listing.deposit_krw: exclusiveMinimum was None, now 0",
        "Listing.listed_on: pattern was None, now '^\\\\d{4}-'",
    ]


def test_a_change_inside_a_nested_model_is_found_through_its_ref() -> None:
    def citation_model(kind: type[StrEnum], **fields: Any) -> type[BaseModel]:
        return create_model("Citation", __config__=ConfigDict(extra="forbid"), kind=(kind, ...), **fields)

    published_kind = StrEnum("LawKind", {"ACT": "법률", "DECREE": "시행령"})
    current_kind = StrEnum("LawKind", {"ACT": "법률"})
    published = listing(
        citations=(list[citation_model(published_kind, article=(str, ...), law=(str, ...))], [])
    )
    current = listing(citations=(list[citation_model(current_kind, law=(int, ...))], []))
    assert breaking_changes(published, current) == [
        "Listing.citations[].kind: enum value '시행령' removed",
        "Listing.citations[].article: property removed",
        "Listing.citations[].law: type changed from string to integer",
    ]


class PublishedRegion(BaseModel):
    """A region and its sub-regions (시 > 구 > 동): a recursive model."""

    model_config = ConfigDict(title="Region")
    name: str
    children: list[PublishedRegion] = []


class CurrentRegion(BaseModel):
    model_config = ConfigDict(title="Region")
    name: str = Field(max_length=10)
    children: list[CurrentRegion] = []


def test_a_recursive_model_is_compared_once_and_terminates() -> None:
    changes = breaking_changes(PublishedRegion.model_json_schema(), CurrentRegion.model_json_schema())
    assert changes == ["Region.name: maxLength was None, now 10"]
