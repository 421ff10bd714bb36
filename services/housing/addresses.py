"""Addresses of a home as people write them: '서울 서초구 반포대로 58, 301동 1502호'."""

from __future__ import annotations

import re

from services.housing.endings import strip_ending

_REGIONS = (
    "서울|부산|대구|인천|광주|대전|울산|세종|경기|강원|충청|충북|충남|전라|전북|전남|경상|경북|경남|제주"
)
_REGION_ADDRESS = re.compile(rf"(?:{_REGIONS})[가-힣]*(?:\s+[^\s,]+){{1,8}}")
# A word of the sentence going on about the deal, not the address.
_STOP = re.compile(r"보증금|전세|월세|계약|임대|임차|특약|관리비|기간")
# The building and unit written after a comma: '반포대로 58, 301동 1502호'.
_UNIT = re.compile(r"\s*,\s*((?:\d+\s*동)(?:\s*\d+\s*호)?|\d+\s*호)[가-힣]*")


def region_address(text: str) -> str | None:
    """The address that opens with a region ('서울 강남구 역삼동 123-4 래미안 101동 1203호를 ...'): its
    words up to the first that is not part of it, and the 동·호 after a comma. None for fewer than three
    words ('서울 강남구')."""
    match = _REGION_ADDRESS.search(text)
    if not match:
        return None
    kept, ended, end = [], False, match.start()
    tokens = list(re.finditer(r"\S+", match.group()))
    for i, token in enumerate(tokens):
        if _STOP.search(token.group()):
            ended = True
            break
        numbered_road = i + 1 < len(tokens) and tokens[i + 1].group()[0].isdigit()  # 반포대로 58
        stripped = token.group() if numbered_road else strip_ending(token.group())
        if stripped:
            kept.append(stripped)
        end = match.start() + token.end()
        if stripped != token.group():
            ended = True
            break
    if len(kept) < 3:
        return None
    if not ended and (unit := _UNIT.match(text, end)):
        kept[-1] += ","
        kept.append(unit.group(1))
    return " ".join(kept)
