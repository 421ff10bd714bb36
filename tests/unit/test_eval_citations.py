"""How `make eval` reads the laws and articles an answer cites: as a person reads them, no further."""

from __future__ import annotations

import pytest

from tests.eval.citations import cited

pytestmark = pytest.mark.unit


def test_an_article_is_cited_with_its_law_and_a_decree_continues_the_law_named_before_it() -> None:
    found = cited("증액은 5%까지입니다(주택임대차보호법 제7조②, 시행령 제8조①).")
    assert found.laws == {"주택임대차보호법", "주택임대차보호법 시행령"}
    assert found.articles == {"주택임대차보호법/제7조", "주택임대차보호법_시행령/제8조"}


def test_the_longest_title_wins_and_spacing_does_not_matter() -> None:
    found = cited("부동산 거래신고 등에 관한 법률시행령 제3조의2와 공인중개사법 제6조, 제4조의3")
    assert found.laws == {"부동산 거래신고 등에 관한 법률 시행령", "공인중개사법"}
    assert found.articles == {
        "부동산_거래신고_등에_관한_법률_시행령/제3조의2",
        "공인중개사법/제6조",
        "공인중개사법/제4조의3",
    }


def test_an_article_number_far_from_any_law_or_on_another_line_cites_nothing() -> None:
    text = "주택임대차보호법이 적용됩니다.\n제7조를 보세요. 아주 긴 설명이 한참 이어진 다음에야 나오는 제8조"
    found = cited(text)
    assert found.laws == {"주택임대차보호법"} and found.articles == set()
