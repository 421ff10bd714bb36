"""Text as people type it, made readable once for every reader in the package."""

from __future__ import annotations

import re
import unicodedata

from services.housing.numerals import spoken_to_digits

MAX_CHARS = 4000  # longer text is cut: the gateway takes questions of up to 2,000 characters
MAX_DIGITS = 12  # longer digit runs are not amounts anyone means (and int() refuses huge ones)

# "5~8억" is "5억~8억": the unit written once is meant for both ends.
_SHARED_UNIT = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)(\s*[~\-–]\s*)(\d+(?:\.\d+)?)\s*(억|천만|만|평)(?!\d)")


def normalize(text: object) -> str:
    """NFKC (full-width digits and signs), tildes unified, numerals in words written in digits ("삼천만원" ->
    "3000만원", numerals.py), and "5~8억" spelled "5억~8억". Hangul jamo
    ("ㅎㅇ") and ㎡ are kept as typed, so words and sizes can be quoted back as written. Anything but a
    string is the empty string."""
    if not isinstance(text, str):
        return ""
    text = "".join(c if _kept_as_typed(c) else unicodedata.normalize("NFKC", c) for c in text[:MAX_CHARS])
    text = spoken_to_digits(text.replace("∼", "~").replace("〜", "~"))
    return _SHARED_UNIT.sub(lambda m: f"{m[1]}{m[4]}{m[2]}{m[3]}{m[4]}", text)


def _kept_as_typed(c: str) -> bool:
    return c == "㎡" or "\u3130" <= c <= "\u318f"


def number(digits: str) -> float | None:
    """ "1,500" -> 1500.0, "1.5" -> 1.5; None for what is not a number or is absurdly long."""
    digits = re.sub(r"[\s,]", "", digits)
    if not digits or len(digits) > MAX_DIGITS:
        return None
    try:
        return float(digits)
    except ValueError:
        return None


def final_consonant(words: str) -> int | None:
    """The 받침 of the last syllable (0 for none, 8 for ㄹ), None when it is not Hangul. A closing gloss
    in parentheses is not read: the particle follows the word it glosses ("LTV(담보인정비율)는")."""
    last = re.sub(r"\([^()]*\)\s*$", "", words.rstrip()).rstrip()[-1:]
    return (ord(last) - ord("가")) % 28 if "가" <= last <= "힣" else None


def topic_particle(words: str) -> str:
    """은 after a 받침, else 는: "DSR(총부채원리금상환비율)은", "LTV(담보인정비율)는", "스트레스 DSR은"
    (a Latin letter read with a 받침: 엘, 엠, 엔, 알)."""
    final = final_consonant(words)
    if final is None:
        last = re.sub(r"\([^()]*\)\s*$", "", words.rstrip()).rstrip()[-1:]
        return "은" if last.upper() in ("L", "M", "N", "R") else "는"
    return "은" if final else "는"


def object_particle(words: str) -> str:
    """을 after a final consonant, 를 after a vowel: '연소득 7,000만원을', '만 29세를'."""
    return "을" if final_consonant(words) else "를"


def subject_particle(words: str) -> str:
    """이 after a final consonant, 가 after a vowel: '송파구가', '잠실동이'."""
    return "이" if final_consonant(words) else "가"


def with_particle(words: str) -> str:
    """과 after a final consonant, 와 after a vowel: '송파구와', '잠실동과'."""
    return "과" if final_consonant(words) else "와"
