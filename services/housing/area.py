"""Areas as Koreans write them about housing: 평 and m², exclusive (전용) and supply (공급) area.

1 평 = 3.3058 m², the figure of the listings data (infra/seed/listings/README.md) and of every service.

Size bands (the listings' areas are supply area, 공급면적):
- "N평대" is [N, N+10) 평; "N평" alone is [N-1, N+1) 평, one 평 either side of what was said, since
  listings round and people round more; "N평 이상/이하" is a one-sided bound; "N~M평" is [N, M+1) 평.
- An area written in m² ("84㎡", "84제곱미터", "전용 59") is read as exclusive area (전용면적), the
  figure Korean listings have had to quote in m² since 2009, and turned into the supply band it implies
  at the usual 전용률 of 70–80 %: 84 m² -> [105, 120) m². "공급 112㎡" is supply area, ±5 %.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.housing.text import normalize, number

PYEONG_M2 = 3.3058  # 1 평 in m²
EXCLUSIVE_SHARE = (0.70, 0.80)  # 전용률 range of apartments: exclusive / supply area


@dataclass(frozen=True)
class SizeBand:
    """A supply-area band in m², `max_m2` exclusive, and the words it was read from."""

    min_m2: float | None
    max_m2: float | None
    text: str


def pyeong(area_m2: float) -> float:
    """m² in 평: 84 -> 25.41."""
    return area_m2 / PYEONG_M2


_PYEONG = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d+)?)\s*평(?:형)?\s*(대)?(?:\s*(이상|이하|미만|넘는|초과))?")
_PYEONG_RANGE = re.compile(
    r"(?<![\d.])(\d{1,3}(?:\.\d+)?)\s*평(?:형)?\s*~\s*(\d{1,3}(?:\.\d+)?)\s*평(?:형)?(대)?"
)
_SQUARE_M = re.compile(
    r"(?P<kind>전용|공급)?(?:\s*면적)?\s*(?<![\d.])(?P<n>\d{1,3}(?:\.\d+)?)\s*(?P<unit>㎡|m2|m\b|제곱미터|제곱|평방미터|sqm)?"
    r"(?:\s*(?P<side>이상|이하|미만|넘는|초과))?"
)


def parse_size(text: object) -> SizeBand | None:
    """The area asked, as a supply-area band in m² (see the module's rules); None when none is named."""
    text = normalize(text)
    return _pyeong_band(text) or _square_metre_band(text)


def _band(low: float | None, high: float | None, words: str) -> SizeBand:
    return SizeBand(None if low is None else round(low, 2), None if high is None else round(high, 2), words)


def _one_sided(low: float, high: float, side: str | None) -> tuple[float | None, float | None]:
    if side in ("이상", "넘는", "초과"):
        return low, None
    if side in ("이하", "미만"):
        return None, high
    return low, high


def _m2(pyeong_count: float | None) -> float | None:
    return None if pyeong_count is None else pyeong_count * PYEONG_M2


def _pyeong_band(text: str) -> SizeBand | None:
    m = _PYEONG_RANGE.search(text)
    if m:
        low, high = number(m[1]), number(m[2])
        if low is not None and high is not None:
            return _band(_m2(low), _m2(high + (10 if m[3] else 1)), m[0].strip())
    m = _PYEONG.search(text)
    n = number(m[1]) if m else None
    if not m or not n:
        return None
    if m[3]:
        low, high = _one_sided(n, n, m[3])
        return _band(_m2(low), _m2(high), m[0])
    low, high = (n, n + 10) if m[2] else (n - 1, n + 1)
    return _band(_m2(low), _m2(high), m[0].strip())


def _square_metre_band(text: str) -> SizeBand | None:
    for m in _SQUARE_M.finditer(text):
        if not (m["unit"] or m["kind"] == "전용"):
            continue  # a bare number is an area only after 전용 ("전용 59")
        n = number(m["n"])
        if not n:
            continue
        if m["kind"] == "공급":
            low, high = n * 0.95, n * 1.05
        else:
            low, high = n / EXCLUSIVE_SHARE[1], n / EXCLUSIVE_SHARE[0]
        one_low, one_high = _one_sided(low, high, m["side"])
        return _band(one_low, one_high, m[0].strip())
    return None
