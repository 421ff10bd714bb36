"""Text as people type it, made readable once for every reader in the package."""

from __future__ import annotations

import re
import unicodedata

MAX_CHARS = 4000  # longer text is cut: the gateway takes questions of up to 2,000 characters
MAX_DIGITS = 12  # longer digit runs are not amounts anyone means (and int() refuses huge ones)

# "5~8억" is "5억~8억": the unit written once is meant for both ends.
_SHARED_UNIT = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)(\s*[~\-–]\s*)(\d+(?:\.\d+)?)\s*(억|천만|만|평)(?!\d)")


def normalize(text: object) -> str:
    """NFKC (full-width digits and signs), tildes unified, and "5~8억" spelled "5억~8억". Hangul jamo
    ("ㅎㅇ") and ㎡ are kept as typed, so words and sizes can be quoted back as written. Anything but a
    string is the empty string."""
    if not isinstance(text, str):
        return ""
    text = "".join(c if _kept_as_typed(c) else unicodedata.normalize("NFKC", c) for c in text[:MAX_CHARS])
    text = text.replace("∼", "~").replace("〜", "~")
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
