"""The planner's legal task widens the person's everyday words into the statute's (issue 4: the answer
must cite the right article, not just the right law)."""

from functools import cache

import pytest

from contracts.steps import StepInputs, plan_inputs
from services.planner.plan_rules import plan_by_rules
from services.platform.team import StepWork
from services.search.legal import LegalFilters
from services.search.legal.tool import search_text
from tests.eval.legal import build_index

pytestmark = pytest.mark.unit


def legal_step(query: str) -> StepWork:
    (step,) = [s for s in plan_by_rules(query).steps if "legal" in s.inputs["focus"]]
    return StepWork("run", step.step_id, step.task, plan_inputs(step.inputs), {}, 1)


def test_the_topic_of_the_task_comes_first_without_the_law_name_or_the_verb() -> None:
    step = StepWork(
        "r",
        "s",
        "주택임대차보호법 차임·보증금 증액 제한(5%) 조항 검색",
        StepInputs(query="3억을 올려달래요"),
        {},
        1,
    )
    assert search_text(step) == "차임·보증금 증액 제한(5%) 3억을 올려달래요"
    assert search_text(StepWork("r", "s", "확정일자 검색", StepInputs(), {}, 1)) == "확정일자 검색"


@cache
def index():
    return build_index()


@pytest.mark.parametrize(
    ("query", "articles"),
    [
        (
            "전세금 3억인데 3억 5천으로 올려달래요",
            {"주택임대차보호법/제7조", "주택임대차보호법_시행령/제8조"},
        ),
        (
            "전세금 5% 인상 제한이 언제까지인가요?",
            {"주택임대차보호법/제7조", "주택임대차보호법_시행령/제8조"},
        ),
        ("확정일자는 어떻게 받나요", {"주택임대차보호법/제3조의6"}),
        # everyday words the statute says otherwise: 엘리베이터 is 승강기, 전입신고 is 주민등록
        ("아파트 엘리베이터 안전점검은 누가 책임지나요?", {"공동주택관리법/제33조"}),
        ("전입신고를 하면 언제부터 대항력이 생기나요?", {"주택임대차보호법/제3조"}),
    ],
)
def test_everyday_questions_reach_the_article_that_answers_them(query: str, articles: set[str]) -> None:
    hits = index().search(search_text(legal_step(query)), LegalFilters(), 2)
    assert articles & {h.article.article_id for h in hits}


@pytest.mark.parametrize(
    ("query", "law", "article"),
    [
        ("공인중개사 자격이 취소되는 경우는?", "공인중개사법", "공인중개사법/제35조"),
        ("민간임대주택 임대의무기간은 몇 년인가요?", "민간임대주택법", "민간임대주택에_관한_특별법/제43조"),
    ],
)
def test_a_question_naming_a_laws_subject_searches_its_own_words_in_that_law(
    query: str, law: str, article: str
) -> None:
    # "중개사" or "민간임대" names the law; the provision is the question's (자격 취소, 임대의무기간),
    # never one guessed from the law's name (중개보수, 임대사업자 의무) that would pull the search away.
    step = legal_step(query)
    assert step.task.startswith(law) and "중개보수" not in step.task and "임대사업자 의무" not in step.task
    hits = index().search(search_text(step), LegalFilters(), 3)
    assert article in {h.article.article_id for h in hits}
