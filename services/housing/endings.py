"""What follows a value in a Korean sentence: a particle or a copula ('58이고', '홍길동입니다')."""

from __future__ import annotations

import re

_ENDING = re.compile(r"\s*(?:입니다|이고요|이고|이며|이다|이에요|예요|이요|임|으로|로|을|를|에서|에)$")


def strip_ending(words: str) -> str:
    """The words without the particle or copula they end with."""
    return _ENDING.sub("", words.strip()).strip()
