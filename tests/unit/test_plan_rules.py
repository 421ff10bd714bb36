"""Plans by rules: teams per intent, specific tasks, dependencies, strategy, estimate, validation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.steps import plan_inputs
from contracts.values import IntentType, PlanStep, Team
from services.planner.plan_rules import Plan, plan_by_rules
from services.planner.steps import TEAM_SECONDS, estimated_seconds, strategy_of, validate_steps

pytestmark = pytest.mark.unit
I = IntentType  # noqa: E741


def ids(plan: Plan) -> list[str]:
    return [s.step_id for s in plan.steps]


def step(plan: Plan, step_id: str) -> PlanStep:
    return next(s for s in plan.steps if s.step_id == step_id)


@pytest.mark.parametrize("text", ["안녕", "집", "", "🙂", "날씨 어때", "x" * 2000])
def test_guidance_intents_plan_no_steps(text: str) -> None:
    plan = plan_by_rules(text)
    assert plan.intent.type in (I.UNCLEAR, I.IRRELEVANT)
    assert plan.steps == [] and plan.strategy == "sequential" and plan.estimated_total_s == 0


def test_a_legal_question_searches_statutes_with_a_specific_task() -> None:
    plan = plan_by_rules("계약 갱신 거부 가능한가요?")
    assert ids(plan) == ["search-legal"]
    assert "계약갱신요구권" in plan.steps[0].task and "주택임대차보호법" in plan.steps[0].task


def test_a_market_question_searches_prices_and_listings_of_the_named_place() -> None:
    plan = plan_by_rules("강남구 아파트 전세 시세 알려주세요")
    only = plan.steps[0]
    assert ids(plan) == ["search-market"] and only.team is Team.SEARCH
    assert only.task == "강남구 아파트 전세 시세·매물 조회"
    assert only.inputs == {
        "query": "강남구 아파트 전세 시세 알려주세요",
        "focus": ["market", "listings"],
        "entities": {
            "gu": ["강남구"],
            "property_types": ["apartment"],
            "deal_type": "jeonse",
            "lease_kinds_named": ["deposit"],  # 전세 names the deposit
            "market_level_asked": True,  # 시세
        },
    }


def test_inputs_carry_the_query_as_written() -> None:
    plan = plan_by_rules("강남구 아파트 ３억 이하 시세")  # a full-width digit
    assert plan.steps[0].inputs["query"] == "강남구 아파트 ３억 이하 시세"
    assert plan.steps[0].inputs["entities"]["price_max_manwon"] == 30000


def test_a_loan_question_without_figures_only_searches() -> None:
    assert ids(plan_by_rules("전세자금대출 한도가 얼마나 되나요?")) == ["search-loan"]


def test_a_loan_question_with_figures_is_simulated_after_the_search() -> None:
    plan = plan_by_rules("연봉 6천만원이면 주담대 얼마까지 나와요?")
    assert ids(plan) == ["search-loan", "simulate-loan"]
    assert step(plan, "simulate-loan").depends_on == ["search-loan"]
    assert plan.strategy == "sequential"


def test_a_contract_is_drafted_by_the_document_team_alone() -> None:
    plan = plan_by_rules("임대차계약서 작성해주세요")
    assert [s.team for s in plan.steps] == [Team.DOCUMENT]
    assert plan.steps[0].inputs["focus"] == ["lease_contract"]


def test_asking_about_clauses_adds_a_legal_search_beside_the_draft() -> None:
    plan = plan_by_rules("반려동물 특약 넣어서 계약서 작성해줘")
    assert set(ids(plan)) == {"search-legal", "draft-lease"}
    assert step(plan, "draft-lease").depends_on == ["search-legal"]


def test_a_contract_review_runs_after_the_legal_search() -> None:
    plan = plan_by_rules("이 계약서 검토하고 위험 요소 분석해줘")
    assert ids(plan) == ["search-legal", "review-contract"]
    assert step(plan, "review-contract").depends_on == ["search-legal"]


def test_jeonse_risk_is_analysed_from_the_market_search() -> None:
    plan = plan_by_rules("잠실동 아파트 전세 사기 위험도 분석해줘")
    assert plan.intent.type is I.RISK_ANALYSIS
    assert step(plan, "analyze-risk").depends_on[0] == "search-market"
    assert step(plan, "analyze-risk").inputs["focus"] == ["jeonse_risk"]


@pytest.mark.parametrize(
    "query",
    [
        "서울 빌라 보증금 1억 4천인데 경매 넘어가면 최우선변제 얼마 받아요?",
        "잠실동 빌라 전세 사기 위험도 분석해줘",
        "마포구 아파트 전세 3억인데 집주인이 5% 올려달래요",
    ],
)
def test_no_market_step_is_planned_where_the_snapshot_lists_nothing(query: str) -> None:
    planned = ids(plan_by_rules(query))
    assert planned and not {"search-market", "analyze-market", "analyze-risk"} & set(planned)


def test_a_document_about_a_home_the_snapshot_does_not_list_is_still_written() -> None:
    planned = ids(plan_by_rules("임대차계약서 써줘. 서울 마포구 독막로 50 빌라, 보증금 2억5천"))
    assert "draft-lease" in planned and "search-market" not in planned


def test_a_market_question_about_what_is_not_listed_still_asks_the_search() -> None:
    assert ids(plan_by_rules("마포구 아파트 전세 시세 알려줘")) == ["search-market"]


def test_risk_of_a_purchase_is_a_market_analysis() -> None:
    plan = plan_by_rules("매매가 10억 아파트 위험한가요")
    assert "analyze-market" in ids(plan) and "analyze-risk" not in ids(plan)


def test_a_rent_increase_gets_the_statute_and_the_calculation() -> None:
    plan = plan_by_rules("집주인이 전세금 3억을 3억 5천으로 올려달래요")
    assert ids(plan) == ["search-legal", "check-rent-increase"]
    assert "증액 제한" in step(plan, "search-legal").task
    assert step(plan, "check-rent-increase").task == "3억원 → 3억 5,000만원 증액이 5% 상한을 넘는지 계산"
    assert step(plan, "check-rent-increase").inputs["entities"]["amounts_manwon"] == [30000, 35000]


@pytest.mark.parametrize(
    "query",
    ["보증금 올려달라는데 한도가 있나요?", "월세 인상 상한이 있어요?", "전세금 인상 최대 몇 프로까지예요?"],
)
def test_asking_the_cap_of_a_raise_plans_its_calculation(query: str) -> None:
    """The cap is a figure: computed from the lease the person stated, in this turn or an earlier one."""
    assert ids(plan_by_rules(query)) == ["search-legal", "check-rent-increase"]


@pytest.mark.parametrize(
    "query",
    [
        "주인이 월세를 70 달라는데 법적으로 가능한가요?",
        "집주인이 보증금 4억으로 하재요",
        "월세 60인데 70 받겠대요",
    ],
)
def test_a_figure_the_landlord_demands_is_a_raise_to_check(query: str) -> None:
    """No raise word, yet a new rent or deposit asked for: the cap is computed against the one that stands."""
    assert "check-rent-increase" in ids(plan_by_rules(query))


@pytest.mark.parametrize(
    "query", ["전세자금대출 체크리스트 작성해줘. 연봉 3천, 무주택", "주담대 받을 때 체크리스트 만들어 주세요"]
)
def test_a_loan_checklist_is_the_loan_application(query: str) -> None:
    plan = plan_by_rules(query)
    assert plan.intent.type is I.LOAN_CONSULT and "prepare-loan-checklist" in ids(plan)


def test_independent_searches_run_in_parallel() -> None:
    plan = plan_by_rules("서초동 전세 시세 알려주고 법적 주의사항도 알려줘")
    assert set(ids(plan)) == {"search-market", "search-legal"}
    assert plan.strategy == "parallel"
    assert plan.estimated_total_s == TEAM_SECONDS[Team.SEARCH]


def test_a_simulation_fed_by_two_searches_is_a_dag_timed_by_its_critical_path() -> None:
    plan = plan_by_rules("강남구 아파트 시세 확인하고 대출 가능 금액 계산해줘")
    assert ids(plan) == ["search-market", "search-loan", "simulate-loan"]
    assert set(step(plan, "simulate-loan").depends_on) == {"search-market", "search-loan"}
    assert plan.strategy == "dag"
    assert plan.estimated_total_s == TEAM_SECONDS[Team.SEARCH] + TEAM_SECONDS[Team.ANALYSIS]


def test_a_document_that_uses_a_listing_waits_for_the_search() -> None:
    plan = plan_by_rules("마포구 아파트 시세 알려주고 계약서 작성해줘")
    assert step(plan, "draft-lease").depends_on == ["search-market"]
    assert plan.estimated_total_s == TEAM_SECONDS[Team.SEARCH] + TEAM_SECONDS[Team.DOCUMENT]


def test_a_comprehensive_question_searches_then_analyses() -> None:
    plan = plan_by_rules("강남구 아파트 사도 될까요? 시세랑 대출, 위험까지 종합적으로 봐줘")
    assert plan.intent.type is I.COMPREHENSIVE
    assert {"search-market", "search-loan", "analyze-market"} <= set(ids(plan))
    assert not validate_steps(plan.steps)


@pytest.mark.parametrize(
    "text",
    [
        "전세금 5% 인상 제한이 언제까지인가요?",
        "강남역 근처 30평대 아파트 매매 시세 알려줘",
        "청년 월세 지원 정책 알려줘",
        "송파구 시세 조회하고 투자 가치 평가해줘",
        "용산구 매매 시세 조회하고 전세 전환 계산해줘",
        "강남구 아파트 사도 될까요? 시세랑 대출, 위험까지 종합적으로 봐줘",
    ],
)
def test_every_plan_is_valid_with_specific_tasks_and_team_timeouts(text: str) -> None:
    plan = plan_by_rules(text)
    assert plan.steps and not validate_steps(plan.steps)
    assert len(set(ids(plan))) == len(plan.steps)
    for s in plan.steps:
        assert s.task and "정보 검색" not in s.task
        assert s.inputs["query"] == text and s.inputs["focus"]
        assert s.timeout_s > 0
    assert plan.context_query == text


def _step(step_id: str, *deps: str, team: Team = Team.SEARCH, focus: list[str] | None = None) -> PlanStep:
    inputs = {"focus": focus} if focus is not None else {}
    return PlanStep(step_id=step_id, team=team, task="과제", depends_on=list(deps), inputs=inputs)


def test_strategy_follows_the_dependencies() -> None:
    a, b, c = _step("a"), _step("b"), _step("c")
    assert strategy_of([]) == "sequential"
    assert strategy_of([a]) == "sequential"
    assert strategy_of([a, b, c]) == "parallel"
    assert strategy_of([a, _step("b", "a"), _step("c", "b")]) == "sequential"  # one chain
    assert strategy_of([a, b, _step("c", "a", "b")]) == "dag"  # a join
    assert strategy_of([a, _step("b", "a"), _step("c", "a")]) == "dag"  # a fork
    assert strategy_of([a, _step("b", "a"), c]) == "dag"  # a chain beside a free step


def test_estimate_is_the_critical_path() -> None:
    steps = [_step("a"), _step("b"), _step("c", "a", team=Team.ANALYSIS), _step("d", "c", team=Team.DOCUMENT)]
    assert (
        estimated_seconds(steps)
        == TEAM_SECONDS[Team.SEARCH] + TEAM_SECONDS[Team.ANALYSIS] + TEAM_SECONDS[Team.DOCUMENT]
    )
    assert estimated_seconds([]) == 0


def test_validate_steps_names_every_problem() -> None:
    assert validate_steps([_step("a"), _step("b", "a")]) == []
    assert any("used twice" in e for e in validate_steps([_step("a"), _step("a")]))
    assert any("itself" in e for e in validate_steps([_step("a", "a")]))
    assert any("unknown step 'z'" in e for e in validate_steps([_step("a", "z")]))
    assert any("comes after it" in e for e in validate_steps([_step("a", "b"), _step("b")]))
    errors = validate_steps([_step("a", "b"), _step("b", "a")])
    assert any(e.startswith("dependency cycle") for e in errors)
    wrong_team = validate_steps([_step("a", team=Team.DOCUMENT, focus=["legal"])])
    assert wrong_team == ["'a': team document does not do focus 'legal'"]


def test_a_jeonse_risk_plan_asks_its_market_search_for_sale_prices_too() -> None:
    """전세가율 needs the 매매 price the person did not ask about."""
    plan = plan_by_rules("송파구 잠실동 아파트 전세 8억인데 깡통전세 위험 있나요?")
    market = next(s for s in plan.steps if "market" in s.inputs["focus"])
    assert market.inputs["also_deal_types"] == ["sale"]
    plain = plan_by_rules("송파구 아파트 전세 시세 알려줘")
    assert all("also_deal_types" not in s.inputs for s in plain.steps)


def test_a_raise_by_an_amount_is_tasked_as_the_change_the_person_asked_about() -> None:
    plan = plan_by_rules("전세 3억인데 집주인이 4천 올려달래요, 되나요?")
    (check,) = [s for s in plan.steps if s.step_id == "check-rent-increase"]
    assert check.task.startswith("3억원 → 3억 4,000만원 증액")  # not "3억원 → 4,000만원"


@pytest.mark.parametrize(
    "text",
    [
        "매매가 5억짜리 빌라인데 근저당 1억 잡혀있고 전세 3억이에요. 깡통전세 위험 어느 정도인가요?",
        "시세 10억 아파트에 전세 5억5천으로 들어가려는데 괜찮을까요? 대출은 없대요",
        "매매 3억 빌라에 전세 2억8천인데 HUG 전세보증금 반환보증 가입 되나요?",
    ],
)
def test_the_prices_a_person_gives_are_analysed_not_searched(text: str) -> None:
    # A price word labelling the person's figure (매매가 5억, 시세 10억) asks no market question, a loan
    # said to be absent asks no loan question, and with both prices given and no place named the plan
    # computes their ratio instead of searching a default district.
    plan = plan_by_rules(text)
    assert "analyze-risk" in ids(plan)
    assert not {"search-market", "analyze-market", "search-loan", "simulate-loan"} & set(ids(plan))
    assert plan.intent.type in (I.RISK_ANALYSIS, I.LEGAL_CONSULT)


def test_given_prices_with_a_place_still_compare_with_its_market() -> None:
    plan = plan_by_rules("잠실동 아파트 매매 15억에 전세 9억이면 위험한가요?")
    assert plan.intent.type is I.RISK_ANALYSIS
    assert {"search-market", "analyze-risk"} <= set(ids(plan))


@pytest.mark.parametrize(
    "text",
    [
        "집 한 채 이미 있는데 서울에 아파트 하나 더 사려고요. 주담대 받을 수 있나요?",
        "LTV랑 DSR 차이가 뭐에요? 둘 다 걸리면 뭐가 대출한도를 정하는 거예요",
    ],
)
def test_a_mortgage_limit_question_without_figures_is_still_simulated(text: str) -> None:
    # The simulator answers what it can (a 0% LTV, how a limit is set) and asks for the rest.
    assert "simulate-loan" in ids(plan_by_rules(text))


@pytest.mark.parametrize(
    "text",
    [
        "월세 계약 특약인데 괜찮은지 봐주실래요?\n- 보증금 5천만원 / 월세 70만원\n"
        "특약1. 임차인은 잔금일로부터 1개월이 지난 후 전입신고를 한다.\n"
        "특약2. 임대인은 잔금일 이후 근저당권 설정을 할 수 있다.",
        "계약서에 이렇게 써있는데 서명해도 돼요?\n"
        "특약: 임대차 기간은 1년으로 하며, 임차인은 기간 만료 시 "
        "어떠한 경우에도 갱신을 요구하지 않고 퇴거한다.",
    ],
)
def test_a_pasted_contract_is_reviewed_however_many_topics_its_clauses_touch(text: str) -> None:
    plan = plan_by_rules(text)
    assert plan.intent.type is I.CONTRACT_REVIEW
    assert "review-contract" in ids(plan)


def test_a_deposit_turned_into_rent_in_everyday_words_is_computed() -> None:
    plan = plan_by_rules(
        "보증금에서 8천만원 빼주고 그만큼 월세로 받겠다는데 법적으로 월세 얼마까지 받을 수 있어요?"
    )
    assert ids(plan) == ["search-legal", "check-rent-increase"]
    assert "전월세 전환" in step(plan, "check-rent-increase").task
    assert "전월세 전환율" in step(plan, "search-legal").task


@pytest.mark.parametrize(
    ("query", "steps"),
    [
        # A risk word inside a legal question is what the law is asked about: nothing to price.
        ("중개사가 근저당 얘기를 일부러 안 하고 계약시켰어요. 공인중개사법 위반 아닌가요?", ["search-legal"]),
        # With a place, the same words describe a property someone can look at.
        ("강남구 전세 근저당 있는 집 계약해도 법적으로 괜찮나요?", None),
    ],
)
def test_a_legal_question_gets_market_steps_only_with_a_place_or_a_figure(
    query: str, steps: list[str] | None
) -> None:
    planned = [s.step_id for s in plan_by_rules(query).steps]
    if steps is None:
        assert "search-market" in planned
    else:
        assert planned == steps


@pytest.mark.parametrize(
    "query",
    [
        "용인에서 보증금 9천 원룸 사는데 집이 경매 넘어가면 최소 얼마는 받아요?",
        "집이 경매로 넘어간대요. 서울이고 보증금 5천인데 그래도 조금이라도 먼저 받을 수 있어요?",
        "살고 있는 빌라가 공매 진행된다는데 보증금 얼마나 돌려받을 수 있나요?",
    ],
)
def test_what_a_tenant_gets_back_at_auction_is_the_laws_figure(query: str) -> None:
    # 최우선변제 in everyday words: the auction is no risk to judge from the market, the deposit no bound
    plan = plan_by_rules(query)
    assert plan.intent.type == "LEGAL_CONSULT"
    assert [s.step_id for s in plan.steps] == ["search-legal", "compute-priority-repayment"]


@pytest.mark.parametrize(
    "query", ["전세 사기 안 당하려면 계약 전에 뭘 확인해야 해요?", "깡통전세 어떻게 알아봐요?"]
)
def test_a_risk_asked_in_general_is_answered_by_the_law_not_a_market_dump(query: str) -> None:
    # no place and no figure: nothing for a market search or a 전세가율 to work on; the statutes say what
    # to check before signing (제3조의7, 제3조①, 제3조의2②)
    assert [s.step_id for s in plan_by_rules(query).steps] == ["search-legal"]
    placed = plan_by_rules("송파구 전세 위험도 분석해줘")
    assert [s.step_id for s in placed.steps] == ["search-market", "analyze-risk"]


@pytest.mark.parametrize(
    "query", ["송파한화오벨리스크 전세 시세와 위험도", "헬리오시티 전세 사기 위험 있어요?"]
)
def test_the_risk_of_a_named_complex_is_judged_from_its_market(query: str) -> None:
    """A complex named is a property to judge, as a place named is, not only a rule to cite."""
    plan = plan_by_rules(query)
    assert step(plan, "analyze-risk").depends_on == ["search-market"]


JUDGED_AS = st.sampled_from(
    ["시세보다 비싼 편인가요?", "비싼 편이에요?", "적당한 가격인가요", "바가지 아닌가요?", "싼 편이에요?"]
)  # fmt: skip
FIGURES_JUDGED = st.sampled_from(
    [
        ("역삼동 원룸 보증금 500에 월세 45인데", {"deposit_manwon": 500, "monthly_rent_manwon": 45}),
        ("잠실엘스 전세 12억이면", {"deposit_manwon": 120000}),
        ("반포동 아파트 매매 30억", {"sale_price_manwon": 300000}),
    ]
)


@given(FIGURES_JUDGED, JUDGED_AS)
def test_a_price_judged_against_the_market_is_analysed_never_searched_for(
    figures: tuple[str, dict[str, int]], judged: str
) -> None:
    """'보증금 500에 월세 45인데 시세보다 비싼 편인가요?': the person's figures are what is judged; a search
    bounded to exactly them would find nothing to judge them against."""
    said, facts = figures
    plan = plan_by_rules(f"{said} {judged}")
    ids = [s.step_id for s in plan.steps]
    assert "analyze-market" in ids and "search-market" in ids
    (search,) = [s for s in plan.steps if s.step_id == "search-market"]
    entities = plan_inputs(search.inputs).entities
    assert {k: getattr(entities, k) for k in facts} == facts
    assert entities.price_min_manwon is None and entities.price_max_manwon is None
    assert entities.monthly_rent_min_manwon is None and plan_inputs(search.inputs).search.limit == 100


def test_the_legal_search_beside_a_lease_being_written_reads_the_lease_law() -> None:
    plan = plan_by_rules("월세 계약서 작성해줘. 임대인 오민석, 임차인 한예린, 보증금 1000, 월세 65")
    (legal,) = [s for s in plan.steps if s.step_id == "search-legal"]
    assert plan_inputs(legal.inputs).search.laws == ["주택임대차보호법", "주택임대차보호법 시행령"]
    other = plan_by_rules("전세 계약 갱신 거절 사유가 뭐예요?")
    assert all(plan_inputs(s.inputs).search.laws == [] for s in other.steps)


@pytest.mark.parametrize(
    "question", ["반전세가 정확히 뭐예요?", "깡통전세가 뭔가요", "근저당이 무슨 뜻이에요", "역전세가 뭐예요?"]
)
def test_what_a_word_means_is_asked_of_the_answer_book_alone(question: str) -> None:
    """'반전세가 뭐예요?' was a market search of every 월세 listing: a word's meaning is no search of them."""
    plan = plan_by_rules(question)
    assert plan.intent.type is IntentType.LEGAL_CONSULT
    assert [s.step_id for s in plan.steps] == ["search-legal"]


def test_a_jeonse_loans_limit_is_its_programmes_not_a_mortgage_simulation() -> None:
    """'전세 4억이면 전세대출 얼마까지?' led with the 주담대 simulator's LTV and DSR."""
    assert ids(plan_by_rules("전세 4억이면 전세대출 얼마까지 나와요?")) == ["search-loan"]
    assert "simulate-loan" in ids(plan_by_rules("연봉 6천인데 6억 아파트 사면 대출 얼마나 나와요?"))
