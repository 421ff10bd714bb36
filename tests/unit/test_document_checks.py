"""The review before a lease is written: sums, term, the 5% cap, void 특약, protective 특약."""

from __future__ import annotations

from datetime import date

import pytest

from services.document.lease.checks import (
    check_increase,
    check_special_terms,
    check_term,
    review_lease,
    settle_payments,
)
from services.document.lease.fields import LeaseFields
from tests.unit.leases import LEASE as BASE

pytestmark = pytest.mark.unit


def lease(**update) -> LeaseFields:
    return BASE.model_copy(update=update)


def test_missing_balance_is_deposit_less_down_payment_and_said() -> None:
    settled, findings = settle_payments(BASE)
    assert settled.balance_won == 315_000_000
    assert settled.balance_date == date(2025, 3, 1)
    assert any("잔금은 보증금에서 계약금을 뺀" in f.message for f in findings)
    assert all(f.severity == "note" for f in findings)


def test_missing_balance_with_interim_payment() -> None:
    settled, findings = settle_payments(lease(interim_payment_won=100_000_000))
    assert settled.balance_won == 215_000_000
    assert "계약금과 중도금" in findings[0].message


def test_sums_that_do_not_add_up_block_and_ask_for_the_balance() -> None:
    _, findings = settle_payments(lease(interim_payment_won=100_000_000, balance_won=200_000_000))
    assert [(f.severity, f.field) for f in findings] == [("error", "balance_won")]
    assert "335,000,000원" in findings[0].message


def test_sums_that_add_up_pass() -> None:
    settled, findings = settle_payments(lease(balance_won=315_000_000, balance_date=date(2025, 2, 28)))
    assert findings == [] and settled.balance_date == date(2025, 2, 28)


def test_payments_beyond_the_deposit_block() -> None:
    _, findings = settle_payments(lease(down_payment_won=400_000_000))
    assert findings[0].severity == "error" and findings[0].field == "down_payment_won"


def test_term_end_must_follow_start() -> None:
    (finding,) = check_term(lease(term_end=date(2025, 3, 1)))
    assert (finding.severity, finding.field) == ("error", "term_end")


def test_term_under_two_years_is_written_with_the_tenants_right() -> None:
    (finding,) = check_term(lease(term_end=date(2026, 2, 28)))
    assert finding.severity == "warning" and finding.field is None
    assert finding.article_ids == ("주택임대차보호법/제4조",)
    assert "임차인은 2년을 주장할 수 있" in finding.message
    (finding,) = check_term(lease(term_end=date(2026, 2, 28), short_term_reason="해외 발령"))
    assert finding.severity == "warning" and "해외 발령" in finding.message


def test_two_years_exactly_is_fine() -> None:
    assert check_term(BASE) == []
    assert check_term(lease(term_end=date(2027, 3, 31))) == []


def test_renewal_increase_over_five_percent() -> None:
    (finding,) = check_increase(
        lease(renewal=True, previous_deposit_won=300_000_000, deposit_won=330_000_000)
    )
    assert finding.severity == "warning" and "10.0%" in finding.message
    assert "주택임대차보호법/제7조" in finding.article_ids
    assert (
        check_increase(lease(renewal=True, previous_deposit_won=300_000_000, deposit_won=315_000_000)) == []
    )
    (rent,) = check_increase(lease(previous_rent_won=1_000_000, monthly_rent_won=1_100_000))
    assert "차임" in rent.message


def test_renewal_without_the_old_price_gets_the_rule_as_a_note() -> None:
    (finding,) = check_increase(lease(renewal=True))
    assert finding.severity == "note" and "5%" in finding.message


@pytest.mark.parametrize(
    "term",
    [
        "임차인은 계약갱신요구권을 행사하지 않는다",
        "임차인은 갱신요구권을 포기한다",
        "임차인은 전입신고를 하지 않는다",
        "임대인은 보증금을 반환하지 않는다",
        "매년 차임을 10% 인상한다",
    ],
)
def test_void_special_terms_are_flagged(term: str) -> None:
    (finding,) = check_special_terms(lease(special_terms=[term]))
    assert finding.severity == "warning" and term in finding.message
    assert finding.article_ids


def test_ordinary_special_terms_pass() -> None:
    terms = ["반려동물 허용", "주차 1대 제공", "차임은 5% 인상한다", "임대인은 잔금일까지 근저당을 말소한다"]
    assert check_special_terms(lease(special_terms=terms)) == []


def test_protective_terms_when_the_situation_calls_for_them() -> None:
    jeonse = review_lease(lease(mortgage=True)).suggested_terms
    assert any("보증금 전액을 임차인에게 반환" in t for t in jeonse)
    assert any("근저당권을 말소" in t for t in jeonse)
    assert any("전세보증보험" in t for t in jeonse)
    monthly = review_lease(lease(monthly_rent_won=500_000, rent_day=25)).suggested_terms
    assert not any("근저당권을 말소" in t or "전세보증보험" in t for t in monthly)


def test_protective_terms_already_agreed_are_not_suggested_again() -> None:
    agreed = ["보증금은 종료일에 반환한다", "근저당은 잔금일까지 말소한다", "전세보증보험 가입에 협조한다"]
    suggested = review_lease(lease(mortgage=True, special_terms=agreed)).suggested_terms
    assert not any("반환한다" in t or "말소" in t or "보증보험" in t for t in suggested)


def test_blank_optional_fields_are_noted() -> None:
    review = review_lease(BASE)
    assert any("임차할 부분, 면적" in f.message for f in review.findings)
    assert review.blocking == []
