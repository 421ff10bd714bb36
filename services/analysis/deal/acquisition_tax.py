"""Acquisition tax on a home (주택 취득세, 지방세법 제11조①8호·제13조의2) plus 지방교육세 (제151조), from
the price and the number of homes the buyer holds after the purchase; and the answer to a question
that asks for it ("15억 아파트 취득세 얼마예요?")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from contracts.results import Figure, Question, StepResult
from services.analysis.case import Case
from services.analysis.profile import Profile, read_profile
from services.analysis.rules.regions import find_region
from services.analysis.rules.rulebook import RuleBook
from services.analysis.rules.tax import TaxRules
from services.housing.money import format_manwon as won_text


@dataclass(frozen=True)
class AcquisitionTax:
    rate: float
    acquisition_manwon: float
    education_manwon: float
    basis: str
    source: str

    @property
    def total_manwon(self) -> float:
        return self.acquisition_manwon + self.education_manwon


def standard_rate(price: float, rules: TaxRules) -> float:
    """1% up to 6억, 3% above 9억, and between them (가액 × 2/3억 − 3)%: the law's own line through both
    ends, kept to four decimal places of a percent as 제11조①8호 says."""
    s = rules.standard
    if price <= s.low_up_to_manwon:
        return s.low_rate
    if price > s.high_above_manwon:
        return s.high_rate
    return round(price / 10_000 * 2 / 3 - 3, 4) / 100


def acquisition_tax(
    price: float, houses_after: int, regulated: bool, rules: TaxRules, day: date
) -> AcquisitionTax:
    surcharge = rules.surcharge_for(regulated, houses_after, day) if houses_after >= 2 else None
    edu = rules.education_tax
    if surcharge:
        rate = surcharge.rate
        education = price * edu.surcharge_rate_of_price
        how = f"다주택 중과 {rate:.0%} ({houses_after}주택, {'조정' if regulated else '비조정'}지역)"
        edu_how = f"지방교육세 가액의 {edu.surcharge_rate_of_price:.1%}"
        source = surcharge.source
    else:
        rate = standard_rate(price, rules)
        education = price * rate * edu.standard_share_of_acquisition_tax
        how = f"표준세율 {rate:.4%} (6억 이하 1%, 6~9억 가액×2/3억−3 %, 9억 초과 3%)"
        edu_how = f"지방교육세 취득세의 {edu.standard_share_of_acquisition_tax:.0%}"
        source = rules.standard.source
    basis = f"{price:,.0f}만원 × {how}; {edu_how}"
    return AcquisitionTax(rate, price * rate, education, basis, f"{source}; {edu.source}")


@dataclass(frozen=True)
class TaxedPurchase:
    """The tax on the purchase a question describes, with what was assumed and what to ask."""

    tax: AcquisitionTax
    houses_after: int
    regulated: bool
    notes: list[str]
    questions: list[Question]


def purchase_tax(case: Case, p: Profile, price: float, rules: RuleBook, day: date) -> TaxedPurchase:
    """The tax on buying at `price` with the homes and the region the question gives; without them the
    purchase is taken as a first home in an unregulated area, and both are said and asked."""
    region = find_region(case.query, case.entities.gu, rules.regions, day)
    notes, questions = [], []
    houses_after = (p.house_count if p.house_count is not None else 0) + 1
    if p.house_count is None:
        notes.append("보유 주택 수를 몰라 이번 집이 첫 주택(1주택)이라고 보고 취득세를 계산했습니다.")
        questions.append(Question(field="house_count", label="지금 가진 주택 수", hint="무주택, 1주택 …"))
    regulated = bool(region and region.regulated)
    if houses_after >= 2 and (region is None or region.regulated is None):
        notes.append("지역을 몰라 비조정지역 세율로 계산했습니다: 조정대상지역이면 중과세율이 더 높습니다.")
        questions.append(Question(field="region", label="주택 소재지 (시·구)"))
    tax = acquisition_tax(price, houses_after, regulated, rules.tax, day)
    return TaxedPurchase(tax, houses_after, regulated, notes, questions)


def rural_tax_note(p: Profile, rules: RuleBook) -> str | None:
    rural = rules.tax.rural_tax.standard_rate_above_85m2
    if p.area_m2 is not None and p.area_m2 <= 85:
        return None
    said = "전용 85㎡ 초과라" if p.area_m2 else "전용 85㎡ 초과 주택이면"
    return f"{said} 농어촌특별세(가액의 {rural:.1%})가 더 붙습니다."


def acquisition_tax_answer(case: Case, rules: RuleBook) -> StepResult:
    """취득세 asked for: the tax and 지방교육세 on the price, for the homes held after the purchase."""
    day = case.day()
    p = read_profile(case)
    if p.price_manwon is None:
        return StepResult(
            headline="취득세를 계산하려면 집의 취득가격(매매가)이 필요합니다.",
            questions=[Question(field="price_manwon", label="매매가", hint="예: 9억")],
        )
    bought = purchase_tax(case, p, p.price_manwon, rules, day)
    t = bought.tax
    rate = f"{t.rate * 100:.4f}".rstrip("0").rstrip(".") + "%"
    headline = (
        f"{won_text(p.price_manwon)} 주택을 사서 {bought.houses_after}주택이 되면 취득세는 {rate}인 "
        f"{won_text(t.acquisition_manwon)}, 지방교육세 {won_text(t.education_manwon)}을 더해 "
        f"{won_text(t.total_manwon)}입니다(지방세법 제11조①8호·제13조의2, 제151조)."
    )
    figures = [
        Figure(
            label="취득세", value=round(t.acquisition_manwon, 2), unit="만원", basis=t.basis, source=t.source
        ),
        Figure(label="지방교육세", value=round(t.education_manwon, 2), unit="만원", basis=t.basis),
        Figure(
            label="취득세 + 지방교육세",
            value=round(t.total_manwon, 2),
            unit="만원",
            basis=f"{t.acquisition_manwon:,.2f} + {t.education_manwon:,.2f}",
        ),
    ]
    rural = rural_tax_note(p, rules)
    return StepResult(
        headline=headline,
        findings=[*bought.notes, *([rural] if rural else [])],
        figures=figures,
        questions=bought.questions,
        data={
            "acquisition_tax": {
                "rate": t.rate,
                "houses_after": bought.houses_after,
                "total_manwon": t.total_manwon,
            }
        },
    )
