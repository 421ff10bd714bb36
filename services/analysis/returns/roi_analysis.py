"""The ROI tool (투자 수익률 분석): reads the purchase from the question, counts 취득세 by price band and
house count, and shows each growth scenario's yearly cash flows, net result, IRR and equity multiple.
Every assumption the person did not give (loan, holding cost, years, house count) is stated beside the
figure it affects, and the person is asked for it."""

from __future__ import annotations

from contracts.results import Figure, Question, StepResult
from services.analysis.case import Case
from services.analysis.deal.acquisition_tax import AcquisitionTax, purchase_tax, rural_tax_note
from services.analysis.loans.loan_simulation import rate_of
from services.analysis.loans.repayment import METHOD_NAMES
from services.analysis.profile import Profile, read_profile
from services.analysis.returns.measures import equity_multiple
from services.analysis.returns.scenarios import Purchase, Scenario, scenario, scenario_irr
from services.analysis.rules.rulebook import RuleBook
from services.housing.money import format_manwon as won_text

GROWTH_SCENARIOS = (-0.02, 0.0, 0.02, 0.04)  # 연 집값 변동률: a fall, flat, and two rises
DEFAULT_YEARS = 5


def roi_analysis(case: Case, rules: RuleBook) -> StepResult:
    day = case.day()
    p = read_profile(case)
    if p.price_manwon is None:
        return StepResult(
            headline="수익률을 계산하려면 매입 가격이 필요합니다.",
            questions=[Question(field="price_manwon", label="매입 가격", hint="예: 8억")],
        )
    bought = purchase_tax(case, p, p.price_manwon, rules, day)
    notes, questions, tax = bought.notes, bought.questions, bought.tax
    purchase, more_notes, more_questions = purchase_of(p, p.price_manwon, tax, rules)
    scenarios = [scenario(purchase, g) for g in GROWTH_SCENARIOS]
    figures = [*cost_figures(purchase, tax, p, rules), *scenario_figures(purchase, scenarios)]
    findings = scenario_findings(purchase, scenarios) + notes + more_notes + tax_notes(p, rules)
    return StepResult(
        headline=headline(purchase, scenarios),
        findings=findings,
        figures=figures,
        questions=questions + more_questions,
        data={"roi": roi_data(purchase, tax, scenarios, day.isoformat())},
    )


def purchase_of(
    p: Profile, price_manwon: float, tax: AcquisitionTax, rules: RuleBook
) -> tuple[Purchase, list[str], list[Question]]:
    """The purchase the profile describes, at `price_manwon` (the profile's price, known by now)."""
    notes: list[str] = []
    questions: list[Question] = []
    if p.loan_manwon is None:
        notes.append("대출 금액을 알려 주지 않아 대출 없이(전액 자기자본) 계산했습니다.")
        questions.append(Question(field="loan_manwon", label="대출 금액 (없으면 0)", hint="예: 대출 4억"))
    rate, _, rate_note = rate_of(p, rules.lending)
    if p.loan_manwon and rate_note:
        notes.append(rate_note)
    holding = p.holding_annual_manwon
    if holding is None:
        holding = price_manwon * rules.tax.holding.annual_rate_of_price
        notes.append(
            f"보유세는 시세의 연 {rules.tax.holding.annual_rate_of_price:.2%}로 가정했습니다 "
            f"({rules.tax.holding.basis}). {rules.tax.holding.note or ''}".strip()
        )
    years = max(1, p.holding_years or DEFAULT_YEARS)
    if p.holding_years is None:
        notes.append(f"보유 기간을 알려 주지 않아 {years}년 뒤 매도로 계산했습니다.")
    purchase = Purchase(
        price_manwon=price_manwon,
        acquisition_tax_manwon=tax.total_manwon,
        loan_manwon=p.loan_manwon or 0.0,
        rate=rate,
        term_years=p.term_years or rules.lending.default_term.years,
        # The person's repayment_method is not checked against Method: schedule() repays one it does not
        # know in full at the end of the term.
        method=p.method or "equal_payment",  # type: ignore[arg-type]
        deposit_manwon=p.deposit_manwon or 0.0,
        rent_monthly_manwon=p.rent_monthly_manwon or 0.0,
        holding_annual_manwon=holding,
        years=years,
    )
    return purchase, notes, questions


def cost_figures(pu: Purchase, tax: AcquisitionTax, p: Profile, rules: RuleBook) -> list[Figure]:
    equity_basis = (
        f"매입가 {pu.price_manwon:,.0f} + 취득세 등 {pu.acquisition_tax_manwon:,.0f}"
        f" − 대출 {pu.loan_manwon:,.0f} − 받은 보증금 {pu.deposit_manwon:,.0f}"
    )
    return [
        Figure(
            label="취득세",
            value=round(tax.acquisition_manwon, 1),
            unit="만원",
            basis=tax.basis,
            source=tax.source,
        ),
        Figure(label="지방교육세", value=round(tax.education_manwon, 1), unit="만원", basis=tax.basis),
        Figure(label="초기 자기자본", value=round(pu.equity_manwon), unit="만원", basis=equity_basis),
        Figure(
            label="연 보유세 (가정)" if p.holding_annual_manwon is None else "연 보유세",
            value=round(pu.holding_annual_manwon),
            unit="만원",
            basis=rules.tax.holding.basis if p.holding_annual_manwon is None else "질문에 주어진 값",
            source=rules.tax.holding.source if p.holding_annual_manwon is None else None,
        ),
    ]


def scenario_figures(pu: Purchase, scenarios: list[Scenario]) -> list[Figure]:
    figures = []
    for s in scenarios:
        name = f"연 {s.growth:+.0%}"
        rate = scenario_irr(s)
        multiple = equity_multiple(s.flows)
        sale_basis = (
            f"매도가 {pu.price_manwon:,.0f} × (1 {s.growth:+.0%})^{pu.years} = {s.sale_manwon:,.0f}; "
            f"대출 잔액 {s.loan_balance_manwon:,.0f}·보증금 {pu.deposit_manwon:,.0f} 상환"
        )
        flows = ", ".join(f"{f:,.0f}" for f in s.flows)
        figures += [
            Figure(
                label=f"{name} 순손익",
                value=round(s.profit_manwon),
                unit="만원",
                basis=f"현금흐름 합계 [{flows}]; {sale_basis}",
            ),
            Figure(
                label=f"{name} IRR",
                value=round(rate * 100, 2) if rate is not None else "계산 불가",
                unit="%" if rate is not None else None,
                basis="연도별 현금흐름의 NPV = 0이 되는 연 할인율 (이분법)",
            ),
            Figure(
                label=f"{name} 자기자본 배수",
                value=round(multiple, 3) if multiple is not None else "계산 불가",
                basis="받은 현금 합계 ÷ 낸 현금 합계",
            ),
        ]
    return figures


def scenario_findings(pu: Purchase, scenarios: list[Scenario]) -> list[str]:
    found = []
    if pu.equity_manwon <= 0:
        found.append(
            "받는 보증금과 대출이 매입가와 세금을 넘어 "
            f"처음 드는 자기자본이 {won_text(pu.equity_manwon)}입니다: "
            "투자금이 없으니 수익률(IRR)을 정의할 수 없고, 매도 때 보증금·대출 상환 부담이 그대로 남습니다."
        )
    flat = next(s for s in scenarios if s.growth == 0)
    found.append(
        f"집값이 그대로면 {pu.years}년 뒤 순손익은 {won_text(flat.profit_manwon)}입니다: "
        "세금·보유비용·이자만큼 손해이고, 대출금은 매도 대금에서 갚으므로 수익이 아닙니다."
        if flat.profit_manwon < 0
        else f"집값이 그대로여도 {pu.years}년 뒤 순손익은 {won_text(flat.profit_manwon)}입니다(임대수익)."
    )
    if pu.loan_manwon:
        found.append(
            f"대출 {won_text(pu.loan_manwon)} "
            f"({METHOD_NAMES[pu.method]}, 연 {pu.rate:.2%}, {pu.term_years}년): "
            "매년 원리금을 현금흐름에서 빼고, 매도 때 남은 잔액을 갚았습니다."
        )
    return found


def tax_notes(p: Profile, rules: RuleBook) -> list[str]:
    rural = rural_tax_note(p, rules)
    notes = ["양도소득세·중개보수·종합부동산세는 넣지 않았습니다: 매도 때 실제 손익은 더 작을 수 있습니다."]
    return [*notes, *([rural] if rural else [])]


def headline(pu: Purchase, scenarios: list[Scenario]) -> str:
    parts = []
    for s in scenarios:
        rate = scenario_irr(s)
        irr_text = f", IRR {rate:.1%}" if rate is not None else ""
        parts.append(f"연 {s.growth:+.0%}면 {won_text(s.profit_manwon)}{irr_text}")
    return f"{pu.years}년 보유 후 매도 시 순손익: " + "; ".join(parts) + "."


def roi_data(pu: Purchase, tax: AcquisitionTax, scenarios: list[Scenario], as_of: str) -> dict:
    return {
        "as_of": as_of,
        "equity_manwon": round(pu.equity_manwon, 1),
        "acquisition_tax_manwon": round(tax.total_manwon, 1),
        "acquisition_tax_rate": tax.rate,
        "scenarios": [
            {
                "growth": s.growth,
                "flows_manwon": [round(f, 1) for f in s.flows],
                "profit_manwon": round(s.profit_manwon, 1),
                "irr": scenario_irr(s),
                "equity_multiple": equity_multiple(s.flows),
            }
            for s in scenarios
        ],
    }
