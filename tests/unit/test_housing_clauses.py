"""One table of lease clauses against the tenant: the analysis's contract review and the document team's
특약 check flag the same real phrasings, for the same reason, on articles that exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.analysis.lease_contract.checks import review_contract
from services.document.lease.checks import check_special_terms
from services.housing.clauses import MANDATORY_ARTICLE, clause_rules, flagged_by
from services.housing.statutes import articles_in_force
from tests.unit.leases import LEASE

pytestmark = pytest.mark.unit


PHRASINGS = [
    ("임차인은 계약갱신요구권을 행사하지 않기로 한다", {"renewal_waiver"}),
    ("임차인은 갱신요구권을 포기한다", {"renewal_waiver"}),
    ("임차인은 계약 만료 시 갱신을 요구하지 않는다", {"renewal_waiver"}),
    ("묵시적 갱신을 배제한다", {"implied_renewal_excluded"}),
    ("기간이 끝나면 계약은 자동으로 연장되지 않는다", {"implied_renewal_excluded"}),
    ("임차인은 보증금 증액 요구에 이의를 제기하지 않는다", {"increase_objection_waived"}),
    ("매년 차임을 10% 인상한다", {"increase_above_cap"}),
    ("차임은 매년 7퍼센트씩 증액한다", {"increase_above_cap"}),
    ("원상복구 비용 일체를 임차인이 부담한다", {"restoration_overbroad"}),
    ("임차인은 전입신고를 하지 않는다", {"move_in_barred"}),
    ("임차인은 확정일자를 받을 수 없다", {"move_in_barred"}),
    ("임차인은 대항력 및 우선변제권을 포기한다", {"move_in_barred"}),
    ("임대인은 보증금을 반환하지 않는다", {"deposit_withheld"}),
    ("보증금은 새로운 임차인이 입주한 후 반환한다", {"deposit_after_new_tenant"}),
    ("임대인이 요구하면 임차인은 즉시 퇴거한다", {"unilateral_termination"}),
    ("임대인은 언제든지 계약을 해지할 수 있다", {"unilateral_termination"}),
    ("위약 시 보증금의 30%를 위약금으로 지급한다", {"excessive_penalty"}),
    ("임차인이 계약을 위반하면 보증금은 임대인에게 귀속된다", {"excessive_penalty"}),
    ("임차인은 모든 수선을 부담한다", {"repairs_all_on_tenant"}),
    ("임대차 기간은 1년으로 한다", {"short_term"}),
    ("임차인은 잔금일로부터 1개월이 지난 후 전입신고를 한다", {"move_in_delayed"}),  # not a 1-month term
    ("확정일자는 입주 후 협의하여 미루기로 한다", {"move_in_delayed"}),
    ("임대인은 잔금일 이후 근저당권 설정을 할 수 있다", {"mortgage_allowed"}),
    ("임대인은 계약 기간 중 담보대출을 받을 수 있으며 임차인은 이의를 제기하지 않는다", {"mortgage_allowed"}),
    # Lawful clauses, some of them what the rules suggest instead.
    ("차임은 5% 인상한다", set()),
    ("위약금은 보증금의 10%로 한다", set()),
    ("반려동물 허용", set()),
    ("임대인은 잔금일까지 근저당을 말소한다", set()),
    ("임대인은 임차인의 갱신요구를 정당한 사유 없이 거절할 수 없다", set()),
    ("원상복구는 임차인의 고의·과실로 인한 훼손에 한하며 통상의 손모는 제외한다", set()),
    ("임차인은 잔금일에 전입신고를 하며, 임대인은 잔금일 다음 날까지 새 담보권을 설정하지 않는다", set()),
    ("차임·보증금의 증액은 주택임대차보호법 제7조의 범위에서 협의한다", set()),
    ("임대차 기간은 24개월로 한다", set()),
    ("임차인은 전입신고 후 확정일자를 받는다", set()),
    ("임차인은 전세자금대출을 받을 수 있다", set()),
]


def analysis_flags(clause: str) -> set[str]:
    return {f.code for f in review_contract(clause) if f.clause}


def document_flags(clause: str) -> set[str]:
    messages = [f.message for f in check_special_terms(LEASE.model_copy(update={"special_terms": [clause]}))]
    return {r.code for r in clause_rules() for m in messages if m.startswith(f"'{clause}': {r.title}.")}


@pytest.mark.parametrize(("clause", "codes"), PHRASINGS)
def test_both_teams_flag_the_same_clauses(clause: str, codes: set[str]) -> None:
    assert {r.code for r in flagged_by(clause)} == codes
    assert analysis_flags(clause) == codes
    assert document_flags(clause) == codes


def test_the_document_cites_the_rule_and_article_10_for_a_void_clause() -> None:
    (finding,) = check_special_terms(LEASE.model_copy(update={"special_terms": ["묵시적 갱신을 배제한다"]}))
    assert finding.severity == "warning" and "무효" in finding.message
    assert finding.article_ids == ("주택임대차보호법/제6조", MANDATORY_ARTICLE)
    (note,) = check_special_terms(
        LEASE.model_copy(update={"special_terms": ["원상복구 비용 일체를 임차인이 부담한다"]})
    )
    assert note.severity == "note" and note.article_ids == ()


def test_every_rule_rests_on_an_article_in_force_and_codes_are_unique() -> None:
    in_force = {a.article_id for a in articles_in_force()}
    rules = clause_rules()
    assert len({r.code for r in rules}) == len(rules)
    for rule in rules:
        assert set(rule.article_ids) <= in_force, rule.code
        assert rule.reason and rule.suggestion, rule.code


def test_a_rule_that_flags_nothing_is_refused(tmp_path: Path) -> None:
    book = tmp_path / "clauses.toml"
    row = 'code = "x"\ntitle = "x"\nseverity = "high"\nvoid = false\nreason = "r"\nsuggestion = "s"\n'
    book.write_text(f"[[clause]]\n{row}", encoding="utf-8")
    with pytest.raises(ValueError, match="clause rule x"):
        clause_rules(book)
