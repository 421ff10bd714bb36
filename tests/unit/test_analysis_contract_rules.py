"""The lease checker against sample contracts with known defects, and one without."""

from __future__ import annotations

import pytest

from services.analysis.case import Case
from services.analysis.lease_contract.checks import review_contract
from services.analysis.lease_contract.review import contract_review
from services.analysis.rules.rulebook import CORPUS
from services.analysis.rules.statutes import StatuteBook

pytestmark = pytest.mark.unit

DEFECTIVE = """제1조 임대인과 임차인은 강남구 역삼동 소재 주택에 대하여 보증금 3억원의 전세 계약을 맺는다.
제2조 임대차 기간은 2025년 3월 1일부터 2026년 2월 28일까지로 한다.
제3조 임차인은 계약갱신요구권을 포기하며 행사하지 않는다.
제4조 임대인은 매년 보증금을 10% 인상할 수 있다.
제5조 임대인이 요구하면 임차인은 즉시 퇴거한다.
제6조 보증금은 새로운 임차인이 입주한 후 반환한다.
제7조 임차인은 전입신고를 하지 않는다.
제8조 임차인이 계약을 위반하면 보증금은 임대인에게 귀속된다.
제9조 묵시적 갱신은 인정하지 않는다."""

SOUND = """제1조(목적물) 서울특별시 마포구 공덕동 123 ○○아파트 101동 1001호 (전용 84㎡)
제2조(보증금과 차임) 보증금은 금 3억원, 전세로 한다. 계약금 3천만원은 계약 시, 잔금은 인도일에.
제3조(임대차 기간) 임대차 기간은 2025년 3월 1일부터 2027년 2월 28일까지로 한다.
제4조(수선) 임대인은 주요 설비의 수선을 부담하고, 임차인은 고의·과실로 인한 파손을 수선한다.
제5조(반환) 임대인은 계약 종료일에 주택의 명도와 동시에 보증금을 반환한다.
제6조(원상복구) 임차인은 원상으로 회복하여 반환한다. 다만 통상의 손모는 제외한다.
제7조(특약) 임차인은 잔금일에 전입신고와 확정일자를 받으며, 임대인은 등기부상 근저당이 없음을 확인하였다."""


def codes(text: str) -> set[str]:
    return {f.code for f in review_contract(text)}


def test_every_known_defect_is_found_with_its_clause_and_article() -> None:
    findings = {f.code: f for f in review_contract(DEFECTIVE)}
    expected = {
        "renewal_waiver": "주택임대차보호법/제6조의3",
        "increase_above_cap": "주택임대차보호법/제7조",
        "unilateral_termination": "주택임대차보호법/제10조",
        "deposit_after_new_tenant": "주택임대차보호법/제4조",
        "move_in_barred": "주택임대차보호법/제3조",
        "excessive_penalty": None,
        "implied_renewal_excluded": "주택임대차보호법/제6조",
        "short_term": "주택임대차보호법/제4조",
    }
    for code, article in expected.items():
        assert findings[code].article_id == article, code
        assert findings[code].clause and findings[code].suggestion
    assert (
        findings["renewal_waiver"].clause.startswith("제3조")
        and findings["renewal_waiver"].severity == "high"
    )
    assert {"missing_repairs", "missing_fixed_date", "missing_restoration"} <= set(findings)


def test_a_sound_contract_has_no_findings() -> None:
    assert review_contract(SOUND) == []


def test_findings_are_ordered_most_serious_first() -> None:
    severities = [f.severity for f in review_contract(DEFECTIVE)]
    assert severities == sorted(severities, key=["high", "medium", "low"].index)


@pytest.mark.parametrize(
    ("clause", "code"),
    [
        ("임차인은 모든 수선을 부담한다. 보증금 1억 월세 50만원.", "repairs_all_on_tenant"),
        ("차임은 매년 7퍼센트씩 증액한다.", "increase_above_cap"),
        ("위약 시 보증금의 30%를 위약금으로 지급한다.", "excessive_penalty"),
        ("임대인은 언제든지 계약을 해지할 수 있다.", "unilateral_termination"),
        ("임차인은 확정일자를 받을 수 없다.", "move_in_barred"),
        ("임차인은 계약기간 중 어떠한 경우에도 보증금 증액을 거부할 수 없다.", "increase_objection_waived"),
        ("임차인은 퇴거 시 도배 장판 비용 전액을 부담한다.", "restoration_overbroad"),
    ],
)
def test_single_risky_clauses(clause: str, code: str) -> None:
    assert code in codes(clause)


def test_lawful_terms_are_not_flagged() -> None:
    lawful = "차임은 3% 증액한다. 위약금은 보증금의 10%로 한다. 임차인은 전입신고를 한다."
    assert not codes(lawful) & {"increase_above_cap", "excessive_penalty", "move_in_barred"}


def test_an_empty_text_has_no_findings() -> None:
    assert review_contract("  ") == []


def test_the_review_tool_quotes_the_conflicting_articles() -> None:
    statutes = StatuteBook.load(CORPUS, laws={"주택임대차보호법"})
    result = contract_review(Case(f"계약서 검토해줘\n{DEFECTIVE}"), statutes)
    cited = {c.article_id for c in result.citations}
    assert {"주택임대차보호법/제10조", "주택임대차보호법/제6조의3"} <= cited
    assert "심각" in result.headline and any("제3조 임차인은 계약갱신요구권" in f for f in result.findings)


def test_without_contract_text_the_review_asks_for_it() -> None:
    statutes = StatuteBook.load(CORPUS, laws={"주택임대차보호법"})
    assert contract_review(Case("계약서 검토해줘"), statutes).questions[0].field == "contract_text"


def test_special_terms_pasted_after_a_colon_are_reviewed_as_they_stand() -> None:
    """A few 특약 are no whole contract: their own risks lead, and no clause is reported missing."""
    statutes = StatuteBook.load(CORPUS, laws={"주택임대차보호법"})
    pasted = (
        "계약서 검토해줘: 임차인은 계약기간 중 어떠한 경우에도 보증금 증액을 거부할 수 없다. "
        "임차인은 퇴거 시 도배 장판 비용 전액을 부담한다."
    )
    result = contract_review(Case(pasted), statutes)
    assert result.headline.startswith("임차인에게 불리하거나 위험한 부분이 2건(심각 1건) 있습니다")
    assert "「임차인은 계약기간 중 어떠한 경우에도 보증금 증액을 거부할 수 없다.」" in result.headline
    assert not any("조항 없음" in f for f in result.findings)
