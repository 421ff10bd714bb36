"""Words that settle what a request is about, read alike by every service that must decide it: the
planner choosing a step and a team doing it must never disagree on whether a contract is a 매매."""

from __future__ import annotations

import re

# A sale (매매, 분양권) rather than a lease; a question naming both is about a lease ("매매가 5억 집에
# 전세 계약서": the price describes the home).
SALE_WORDS = re.compile(r"매매|매도인|매수인|분양권")
LEASE_WORDS = re.compile(r"임대차|전세|월세|임대|임차|집주인|세입자")


def speaks_only_of_a_sale(text: str) -> bool:
    return bool(SALE_WORDS.search(text)) and not LEASE_WORDS.search(text)
