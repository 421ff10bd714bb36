"""Areas in 평 and m² read into the supply-area bands the listings are searched by."""

from __future__ import annotations

import pytest

from services.housing.area import PYEONG_M2, parse_size, pyeong

pytestmark = pytest.mark.unit


def test_one_pyeong_is_the_listings_figure() -> None:
    assert PYEONG_M2 == 3.3058 and round(pyeong(84), 2) == 25.41


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("30평대", 30 * PYEONG_M2, 40 * PYEONG_M2),
        ("30평형대 아파트", 30 * PYEONG_M2, 40 * PYEONG_M2),
        ("25평", 24 * PYEONG_M2, 26 * PYEONG_M2),
        ("30~40평", 30 * PYEONG_M2, 41 * PYEONG_M2),
        ("84㎡", 84 / 0.8, 84 / 0.7),
        ("84m2", 84 / 0.8, 84 / 0.7),
        ("84m²", 84 / 0.8, 84 / 0.7),
        ("84제곱미터", 84 / 0.8, 84 / 0.7),
        ("전용 59", 59 / 0.8, 59 / 0.7),
        ("공급 112㎡", 112 * 0.95, 112 * 1.05),
    ],
)
def test_sizes_become_supply_area_bands(text: str, low: float, high: float) -> None:
    band = parse_size(text)
    assert band is not None
    assert band.min_m2 == pytest.approx(low, abs=0.01)
    assert band.max_m2 == pytest.approx(high, abs=0.01)


def test_thirty_pyeong_band_matches_the_listings_readme() -> None:
    band = parse_size("30평대")
    assert (band.min_m2, band.max_m2) == (99.17, 132.23)


def test_size_text_is_what_the_person_wrote() -> None:
    assert parse_size("역삼동 84㎡ 아파트").text == "84㎡"
    assert parse_size("30평대로 다시").text == "30평대"


def test_one_sided_sizes() -> None:
    above = parse_size("20평 이상")
    assert above.min_m2 == pytest.approx(20 * PYEONG_M2, abs=0.01) and above.max_m2 is None


@pytest.mark.parametrize("text", ["", "강남구 아파트", "59", "3억", "2년", None, 42, "9" * 5000 + "평"])
def test_no_size_when_none_is_named(text: object) -> None:
    assert parse_size(text) is None
