"""How people name the brokerage fee (중개보수): 복비, 중개비, 중개수수료, 부동산 수수료, "부동산에 얼마
줘야". Read here once, so the planner's step and the analysis team's tool answer the same questions."""

from __future__ import annotations

import re

_BROKER = r"(?:부동산|중개사(?:무소)?|복덕방)"
BROKERAGE_FEE_WORDS = re.compile(
    rf"중개\s*(?:보수|수수료|비)|복비|{_BROKER}\s*(?:수수료|보수|비용)"
    # "부동산에 얼마 줘야", "중개사한테 돈 얼마 내요": paying the broker is asking its fee.
    rf"|{_BROKER}\s*(?:에|에게|에다|한테|쪽에)\s*(?:돈\s*)?얼마.{{0,8}}(?:줘|주|내|드려|드리|나가)"
)
