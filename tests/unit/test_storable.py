"""Text as Postgres can hold it (services/platform/storable.py)."""

from __future__ import annotations

import json

import pytest

from services.platform.storable import escaped, is_storable, storable, stripped


@pytest.mark.parametrize("text", ["a\x00b", "a\ud800b", "\udfff"])
def test_a_nul_or_an_unpaired_surrogate_is_not_storable(text: str) -> None:
    assert not is_storable(text)
    with pytest.raises(ValueError, match="U\\+0000"):
        storable(text)


def test_korean_text_and_a_paired_surrogate_decoded_are_storable() -> None:
    assert is_storable("전세 3억 😀") and storable("전세 3억 😀") == "전세 3억 😀"


def test_a_reason_keeps_them_visible_as_escapes() -> None:
    assert escaped("값 a\x00b\ud800") == "값 a\\x00b\\ud800"
    assert is_storable(escaped("a\x00b\ud800"))


def test_a_model_reply_loses_them_as_characters_and_as_json_escapes() -> None:
    assert stripped("조\x00회\ud800 결과") == "조회 결과"
    reply = json.dumps({"answer": "a\x00b", "literal": "c\\u0000d"})  # NUL escaped; a backslash then u0000
    assert json.loads(stripped(reply)) == {"answer": "ab", "literal": "c\\u0000d"}
