"""The checks of a contract's payments, the same for the lease and the sale: 계약금 + 중도금 + 잔금 add up
to the total (보증금, 매매대금), and the days they are paid come in order."""

from __future__ import annotations

from datetime import date

from services.document.common.findings import Finding, error, note
from services.housing.money import contract_amount


def split_payments(
    total_label: str, total: int | None, down: int | None, interim: int | None, balance: int | None
) -> tuple[int | None, list[Finding]]:
    """계약금 + 중도금 + 잔금 = the total (보증금, 매매대금), for every contract we write. A missing 잔금 is
    what the others leave, and we say so: (that 잔금, findings); an error names the field to ask again."""
    if total is None or down is None:
        return None, []
    paid_before = down + (interim or 0)
    parts = "계약금과 중도금" if interim else "계약금"
    if balance is None:
        if paid_before > total:
            return None, [error("down_payment_won", f"{parts}의 합이 {total_label}({total:,}원)보다 큽니다")]
        left = total - paid_before
        message = f"잔금은 {total_label}에서 {parts}을 뺀 {contract_amount(left)}으로 계산했습니다."
        return left, [note(message)]
    if paid_before + balance != total:
        message = (
            f"계약금·중도금·잔금의 합({paid_before + balance:,}원)이 {total_label}({total:,}원)과 다릅니다"
        )
        return None, [error("balance_won", message)]
    return None, []


def dates_in_order(days: list[tuple[str, str, date | None]]) -> list[Finding]:
    """(field, label, day) in the order the contract pays them (계약일 ≤ 중도금일 ≤ 잔금일): the first
    day that comes before an earlier one is an error on its field, to be asked again."""
    known = [(name, label, day) for name, label, day in days if day is not None]
    for (_, before_label, before), (name, label, day) in zip(known, known[1:], strict=False):
        if day < before:
            return [error(name, f"{label}({day})이 {before_label}({before})보다 앞섭니다")]
    return []
