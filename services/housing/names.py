"""People's names as a lease's parties are written: '집주인은 정미경', '세입자는 저 한지훈이고'."""

from __future__ import annotations

import re

# Particles after a name; 은/이/과/와 end many names too (김지은), so they go only from long tokens.
_SUFFIX = re.compile(r"(?:씨|님|이고|이며|입니다|이다|이에요|예요|이요|는|가)$")
_LONG_SUFFIX = re.compile(r"(?:과|와|이|은)$")
# A word ending like this is the sentence going on ('임차인이 반려동물을 ...'), not a name.
_NOT_A_NAME_ENDING = re.compile(r"(?:을|를|에|에서|의|도|로|만|께|하고|해서|면|요|다)$")
# The speaker naming themself before their name: '세입자는 저 한지훈이고'.
_SELF = {"저", "제", "나", "내", "본인", "저는", "제가", "나는", "본인은"}
_NOT_NAMES = {
    "정보",
    "성명",
    "이름",
    "서명",
    "주소",
    "연락처",
    "본인",
    "미정",
    "없음",
    "누구",
    "측",
    "부담",
    "명의",
}


def person_name(words: str) -> str | None:
    """The name the words open with (2 to 4 Hangul syllables), particles and a leading '저' aside;
    None when they do not open with one."""
    tokens = [t for t in words.split() if t not in _SELF]
    name = _SUFFIX.sub("", tokens[0]) if tokens else ""
    name = _LONG_SUFFIX.sub("", name) if len(name) > 3 else name
    if not (2 <= len(name) <= 4 and re.fullmatch(r"[가-힣]+", name)):
        return None
    return None if name in _NOT_NAMES or _NOT_A_NAME_ENDING.search(name) else name
