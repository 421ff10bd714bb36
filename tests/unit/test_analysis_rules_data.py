"""The dated rule files (infra/seed/rules) load, carry dates and sources, and point at real articles."""

from __future__ import annotations

import re
from datetime import date

import pytest

from services.analysis.rules.rulebook import CORPUS, RULES_DIR, RuleBook
from services.analysis.rules.statutes import StatuteBook
from services.document.loan import applicant as loan_applicant
from services.document.sale import rules as sale_rules
from services.housing.money import amounts_manwon

pytestmark = pytest.mark.unit
RULES = RuleBook.load()


def test_every_rule_file_is_read() -> None:
    # the analysis rule book reads the dated rules; the document team its own two books
    documents = {sale_rules.RULES.stem, loan_applicant.DOCUMENTS_FILE.stem}
    assert {p.stem for p in RULES_DIR.glob("*.toml")} == set(RuleBook.model_fields) | documents


def test_dates_are_past_and_sources_are_given() -> None:
    lease, risk = RULES.lease, RULES.jeonse_risk
    dated = [lease.increase_cap, lease.conversion, lease.base_rate, risk, risk.guarantee]
    for rule in dated:
        assert rule.effective_date <= date.today() and rule.source.strip()
    assert lease.base_rate.effective_date <= lease.base_rate.checked_on <= date.today()


def test_rates_are_fractions_not_percents() -> None:
    assert RULES.lease.increase_cap.max_ratio == 0.05
    assert 0 < RULES.lease.base_rate.rate < 0.1 and RULES.lease.conversion.base_rate_spread == 0.02
    assert RULES.lease.conversion.statutory_cap_rate == 0.10


def test_risk_bands_ascend_and_cover_every_ratio() -> None:
    limits = [b.below_ratio for b in RULES.jeonse_risk.bands]
    assert limits == sorted(limits) and limits[-1] > 10
    assert (
        RULES.jeonse_risk.band_for(0.0).label == "안전"
        and RULES.jeonse_risk.band_for(5.0).label == "매우 위험"
    )


def test_articles_named_by_the_rules_are_in_the_corpus() -> None:
    statutes = StatuteBook.load(CORPUS)
    for article_id in [*RULES.lease.increase_cap.articles, *RULES.lease.conversion.articles]:
        assert article_id in statutes, article_id


def test_the_decree_states_the_rates_the_rule_file_uses() -> None:
    """시행령 제9조 says 연 1할 and 연 2퍼센트: the file must not drift from the statute."""
    text = StatuteBook.load(CORPUS).cite("주택임대차보호법_시행령/제9조").text
    assert "연 1할" in text and "연 2퍼센트" in text


def numbered_amounts(article_id: str) -> list[int]:
    """The amount on each numbered item (1. 서울특별시: 5천500만원) of an article, in 만원."""
    text = StatuteBook.load(CORPUS).cite(article_id, max_chars=10_000).text
    return [amounts_manwon(line)[0] for line in text.splitlines() if re.match(r"\d+\. ", line)]


def test_the_small_deposit_table_is_the_decrees() -> None:
    """시행령 제10조① (일정액) and 제11조 (보증금 기준), item by item, as the corpus says."""
    table = RULES.small_deposit.table_on(date.today())
    assert [t.protected_manwon for t in table.tiers] == numbered_amounts("주택임대차보호법_시행령/제10조")
    assert [t.max_deposit_manwon for t in table.tiers] == numbered_amounts("주택임대차보호법_시행령/제11조")
    assert table.effective_from <= date.today() and table.house_value_share == 0.5
    assert all(article_id in StatuteBook.load(CORPUS) for article_id in table.articles)


def test_the_brokerage_rule_is_the_articles() -> None:
    """시행규칙 제20조⑤ 제1호 (× 100, 5천만원 미만이면 × 70) and ④ 제2호 (1천분의 9)."""
    rule, rate = RULES.brokerage.transaction_amount, RULES.brokerage.non_housing
    text = StatuteBook.load(CORPUS).cite("공인중개사법_시행규칙/제20조", max_chars=10_000).text
    assert f"{rule.rent_multiplier}을 곱한" in text and f"{rule.small_rent_multiplier}을 곱한" in text
    assert "5천만원 미만" in text and rule.small_threshold_manwon == 5000
    assert "1천분의 9" in text and rate.max_rate == 0.009
    assert rule.effective_date <= date.today() and rate.effective_date <= date.today()


def test_the_brokerage_rate_tables_rest_on_the_articles_that_delegate_them() -> None:
    """별표 1·2 and the 조례 are not in the corpus; the articles that hand the rates to them are, and say
    what the answer says: 제32조④ (국토교통부령의 범위에서 시·도 조례), 제20조① (쌍방 각각, 조례의 요율한도
    이내에서 협의), ④ 제1호 (전용 85㎡ 이하 오피스텔, 별표 2)."""
    book = StatuteBook.load(CORPUS)
    act = book.cite("공인중개사법/제32조", max_chars=10_000).text
    rule = book.cite("공인중개사법_시행규칙/제20조", max_chars=10_000).text
    assert "국토교통부령으로 정하는 범위 안에서" in act and "조례로 정하고" in act
    assert "쌍방으로부터 각각" in rule and "별표 1" in rule and "요율한도 이내에서" in rule
    officetel = RULES.brokerage.officetel[-1]
    assert f"{officetel.max_exclusive_m2}제곱미터 이하" in rule and "별표 2" in rule
    for table in RULES.brokerage.housing:
        assert set(table.articles) <= {"공인중개사법/제32조", "공인중개사법_시행규칙/제20조"}
        assert "별표 1" in table.source and table.effective_from <= date.today()
