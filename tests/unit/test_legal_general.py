"""General rules a specific question rests on (services/search/legal/general.py): a term giving up a
tenant's right is answered with the rule that such a term is void, "왜 만든 법" with the law's purpose,
whatever the specific article ranked first; which articles are general is read from the corpus."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.search.legal.articles import corpus_articles
from services.search.legal.general import GeneralArticles, asked_rules
from services.search.legal.search import LegalIndex
from tests.eval.legal import build_index

pytestmark = pytest.mark.unit

VOID = "주택임대차보호법/제10조"


@pytest.fixture(scope="module")
def index() -> LegalIndex:
    return build_index()  # the shipped corpus, BM25 alone: the rule must not need the dense ranking


def test_the_general_articles_are_read_from_the_corpus() -> None:
    general = GeneralArticles(corpus_articles())

    def found(family: str, rule: str) -> str | None:
        article = general.of(family, rule)
        return None if article is None else article.article_id

    assert found("주택임대차보호법", "강행규정") == VOID  # by its sentence, not its number
    assert found("공인중개사법", "목적") == "공인중개사법/제1조"  # the statute's own over its decree's
    assert found("주택법", "정의") == "주택법/제2조"
    assert found("공인중개사법", "강행규정") is None  # a law without such a sentence has none


TERMS = ["특약", "계약서 조항", "특약사항", "계약서에 넣자고 한 조건", "약정"]
RIGHTS = ["계약갱신 요구를", "대항력을", "보증금 반환 청구를", "차임 감액 청구를", "우선변제권을"]
GIVING_UP = ["안 하기로 한다는", "주장하지 않는다는", "포기한다는", "못 하게 하는"]
ENDINGS = ["이 있는데 따라야 하나요?", "에 서명하면 효력이 있나요?", "을 넣자고 하는데 괜찮을까요?"]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(TERMS), st.sampled_from(RIGHTS), st.sampled_from(GIVING_UP), st.sampled_from(ENDINGS))
def test_a_term_giving_up_a_tenants_right_is_answered_with_the_void_rule(
    index: LegalIndex, term: str, right: str, giving_up: str, ending: str
) -> None:
    question = f"집주인이 임차인은 {right} {giving_up} {term}{ending}"
    ids = [hit.article.article_id for hit in index.search(question)]
    assert VOID in ids, (question, ids)
    if ids[0] != VOID:  # the specific article stays first; the rule beside it
        assert ids[1] == VOID, (question, ids)


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(["보증금 반환", "전입신고", "확정일자", "관리비", "중개보수"]), st.sampled_from(ENDINGS)
)
def test_a_question_giving_nothing_up_asks_no_void_rule(topic: str, ending: str) -> None:
    assert not [rule.name for rule in asked_rules(f"{topic} 관련 특약{ending}") if rule.name == "강행규정"]
    assert not [
        rule.name for rule in asked_rules(f"{topic}은 안 하면 어떻게 되나요?") if rule.name == "강행규정"
    ]


@pytest.mark.parametrize(
    ("law", "purpose"),
    [
        ("공인중개사법", "공인중개사법/제1조"),
        ("부동산등기법", "부동산등기법/제1조"),
        ("공동주택관리법", "공동주택관리법/제1조"),
    ],
)
@pytest.mark.parametrize(
    "asked", ["{law}은 왜 만든 법이에요?", "{law}의 취지가 뭔가요?", "{law}은 뭘 하려고 만든 거예요?"]
)
def test_what_a_law_is_for_is_its_purpose_article(
    index: LegalIndex, law: str, purpose: str, asked: str
) -> None:
    assert index.search(asked.format(law=law))[0].article.article_id == purpose
