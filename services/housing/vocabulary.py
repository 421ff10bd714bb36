"""Words that settle what a request is about, read alike by every service that must decide it: the
planner choosing a step and a team doing it must never disagree on whether a contract is a 매매, or
whether the brokerage fee is asked."""

from __future__ import annotations

import re

# A sale (매매, 분양권) rather than a lease; a question naming both is about a lease ("매매가 5억 집에
# 전세 계약서": the price describes the home).
SALE_WORDS = re.compile(r"매매|매도인|매수인|분양권")
LEASE_WORDS = re.compile(r"임대차|전세|월세|임대|임차|집주인|세입자")


def speaks_only_of_a_sale(text: str) -> bool:
    return bool(SALE_WORDS.search(text)) and not LEASE_WORDS.search(text)


# How people name the brokerage fee (중개보수): 복비, 중개비, 중개수수료, 부동산 수수료, "부동산에 얼마 줘야".
_BROKER = r"(?:부동산|중개사(?:무소)?|복덕방)"
BROKERAGE_FEE_WORDS = re.compile(
    rf"중개\s*(?:보수|수수료|비)|복비|{_BROKER}\s*(?:수수료|보수|비용)"
    # "부동산에 얼마 줘야", "중개사한테 돈 얼마 내요": paying the broker is asking its fee.
    rf"|{_BROKER}\s*(?:에|에게|에다|한테|쪽에)\s*(?:돈\s*)?얼마.{{0,8}}(?:줘|주|내|드려|드리|나가)"
)
