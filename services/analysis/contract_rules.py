"""Lease contract checks (임대차계약서 검토) by rules: missing essentials and void or risky clauses.

`review_contract(text)` is pure and self-contained (no statute text, no I/O) so the document team can run
the same rules on a contract it drafts or receives; callers attach the article text by `article_id`.
The rules catch the clear cases; an LLM may add judgement on top, never remove a rule's finding.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from services.housing.dates import clause_term_months

Severity = Literal["high", "medium", "low"]
SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2}
LEGAL_INCREASE_CAP_PERCENT = 5.0  # 주택임대차보호법 제7조② (20분의 1)
PENALTY_PERCENT_WARNING = 10.0  # 보증금의 10%를 넘는 위약금은 관행(계약금 10%)을 넘어 감액 대상이 되기 쉽다
MAX_QUOTE = 200


@dataclass(frozen=True)
class Finding:
    """One problem in a lease (검토 의견): the clause quoted (None when something is missing), how serious
    it is, the article it conflicts with (a corpus id) and a rewrite to propose."""

    code: str
    title: str
    severity: Severity
    clause: str | None
    article_id: str | None
    reason: str
    suggestion: str


@dataclass(frozen=True)
class _Essential:
    code: str
    title: str
    present: re.Pattern[str]
    severity: Severity
    article_id: str | None
    reason: str
    suggestion: str


ESSENTIALS = (
    _Essential(
        "missing_address",
        "목적물 소재지",
        re.compile(r"소재|주소|목적물"),
        "high",
        None,
        "어느 주택의 임대차인지 특정되지 않습니다.",
        "제1조에 주택 소재지(동·호수 포함)와 면적을 적으세요.",
    ),
    _Essential(
        "missing_deposit",
        "보증금",
        re.compile(r"보증금"),
        "high",
        "주택임대차보호법/제3조의2",
        "보증금 액수와 지급 일정이 없으면 우선변제를 주장할 금액이 불분명합니다.",
        "보증금 금 ○○원, 계약금·잔금 액수와 지급일을 적으세요.",
    ),
    _Essential(
        "missing_term",
        "임대차 기간",
        re.compile(r"임대차\s*기간|계약\s*기간|\d+\s*년\s*\d+\s*월\s*\d+\s*일\s*까지|까지로\s*한다"),
        "high",
        "주택임대차보호법/제4조",
        "기간이 없으면 2년으로 봅니다(제4조①).",
        "임대차 기간은 인도일인 ○년 ○월 ○일부터 ○년 ○월 ○일까지(24개월)로 한다.",
    ),
    _Essential(
        "missing_return",
        "보증금 반환",
        re.compile(r"반환"),
        "medium",
        "주택임대차보호법/제4조",
        "기간이 끝날 때 보증금을 언제 돌려받는지 정해 두어야 합니다.",
        "임대인은 계약 종료일에 임차주택의 명도와 동시에 보증금 전액을 반환한다.",
    ),
    _Essential(
        "missing_repairs",
        "수선 의무",
        re.compile(r"수선|수리|하자"),
        "medium",
        None,
        "수선 책임이 없으면 누가 고칠지 다툼이 생깁니다(민법 제623조: 임대인의 수선의무).",
        "임대인은 주요 설비의 노후·불량으로 인한 수선을, 임차인은 고의·과실로 인한 파손의 수선을 부담한다.",
    ),
    _Essential(
        "missing_restoration",
        "원상복구",
        re.compile(r"원상\s*(복구|회복)"),
        "low",
        None,
        "원상복구 범위가 없으면 퇴거 때 보증금 공제를 두고 다툼이 생깁니다.",
        "임차인은 계약 종료 시 임차주택을 원상으로 회복한다. 다만 통상의 사용에 따른 손모는 제외한다.",
    ),
    _Essential(
        "missing_fixed_date",
        "확정일자",
        re.compile(r"확정\s*일자"),
        "medium",
        "주택임대차보호법/제3조의2",
        "확정일자가 있어야 경매·공매 때 우선변제를 받습니다.",
        "임대인은 임차인의 확정일자 취득에 협조한다.",
    ),
    _Essential(
        "missing_move_in",
        "전입신고·대항력",
        re.compile(r"전입|대항력|주민등록"),
        "medium",
        "주택임대차보호법/제3조",
        "인도와 전입신고를 마쳐야 다음 날부터 대항력이 생깁니다.",
        "임차인은 잔금일에 주택을 인도받고 전입신고를 하며, "
        "임대인은 잔금일 다음 날까지 새 담보권을 설정하지 않는다.",
    ),
    _Essential(
        "missing_encumbrances",
        "권리관계(선순위 채권·체납 세금)",
        re.compile(r"근저당|선순위|등기|체납|국세|지방세"),
        "medium",
        "주택임대차보호법/제3조의7",
        "선순위 근저당·체납 세금을 확인·고지하는 조항이 없습니다.",
        "임대인은 계약 체결 시 선순위 확정일자·보증금 정보와 납세증명서를 임차인에게 제시한다.",
    ),
)


@dataclass(frozen=True)
class _Risk:
    code: str
    title: str
    severity: Severity
    article_id: str | None
    reason: str
    suggestion: str
    matches: Callable[[str], bool]


def _pattern(regex: str) -> Callable[[str], bool]:
    compiled = re.compile(regex)
    return lambda sentence: bool(compiled.search(sentence))


def _increase_above_cap(sentence: str) -> bool:
    if not re.search(r"증액|인상|올", sentence):
        return False
    return any(
        float(p) > LEGAL_INCREASE_CAP_PERCENT for p in re.findall(r"(\d+(?:\.\d+)?)\s*(?:%|퍼센트)", sentence)
    )


def _excessive_penalty(sentence: str) -> bool:
    if re.search(r"보증금[^.\n]*(몰수|반환하지\s*않|귀속|돌려주지\s*않)", sentence):
        return True
    if not re.search(r"위약금|위약벌|손해배상|배상", sentence):
        return False
    percents = [float(p) for p in re.findall(r"(\d+(?:\.\d+)?)\s*(?:%|퍼센트)", sentence)]
    return any(p > PENALTY_PERCENT_WARNING for p in percents) or bool(
        re.search(r"배액의?\s*[3-9]|[3-9]\s*배", sentence)
    )


RISKS = (
    _Risk(
        "renewal_waiver",
        "계약갱신요구권 포기",
        "high",
        "주택임대차보호법/제6조의3",
        "갱신요구권을 포기시키는 약정은 임차인에게 불리하여 무효입니다(제10조).",
        "이 조항을 삭제하세요. 임차인은 제6조의3에 따라 계약갱신을 1회 요구할 수 있다.",
        _pattern(
            r"갱신\s*(요구|청구)\s*(권)?[^.\n]*(포기|행사하지|행사할\s*수\s*없|하지\s*않|할\s*수\s*없)"
            r"|포기[^.\n]*갱신\s*(요구|청구)"
        ),
    ),
    _Risk(
        "implied_renewal_excluded",
        "묵시적 갱신 배제",
        "high",
        "주택임대차보호법/제6조",
        "통지 없이 기간이 끝나면 같은 조건으로 갱신됩니다(제6조). 배제 약정은 무효입니다(제10조).",
        "이 조항을 삭제하세요. 묵시적 갱신은 주택임대차보호법 제6조에 따른다.",
        _pattern(r"묵시적\s*갱신[^.\n]*(없|배제|인정하지|적용하지)|자동\s*(으로\s*)?(연장|갱신)\s*되지"),
    ),
    _Risk(
        "move_in_barred",
        "전입신고·확정일자 제한",
        "high",
        "주택임대차보호법/제3조",
        "전입신고·확정일자를 막으면 대항력과 우선변제권을 잃습니다. "
        "임차인에게 불리한 약정으로 무효입니다(제10조).",
        "이 조항을 삭제하고 '임차인은 전입신고와 확정일자를 받을 수 있다'로 바꾸세요.",
        _pattern(
            r"(전입\s*신고|확정\s*일자|주민\s*등록)[^.\n]*(하지\s*않|하지\s*아니|수\s*없|금지|불가|못\s*한다)"
        ),
    ),
    _Risk(
        "increase_above_cap",
        "5% 상한을 넘는 증액",
        "high",
        "주택임대차보호법/제7조",
        "증액청구는 약정한 차임·보증금의 5%를 넘지 못합니다(제7조②).",
        "차임·보증금의 증액은 주택임대차보호법 제7조의 범위(연 5% 이내, 1년 이내 재증액 불가)에서 협의한다.",
        _increase_above_cap,
    ),
    _Risk(
        "unilateral_termination",
        "임대인의 일방적 해지",
        "high",
        "주택임대차보호법/제10조",
        "법정 사유 없이 임대인이 언제든 해지·퇴거를 요구하는 "
        "약정은 임차인의 기간 보장(제4조)에 반해 무효입니다.",
        "임대인은 차임 2기 연체 등 법정 사유가 있는 경우에 한하여 계약을 해지할 수 있다.",
        _pattern(
            r"임대인[^.\n]*(언제든지|언제라도|일방적으로|임의로|즉시)[^.\n]*(해지|해제|퇴거|명도|비워|나가)"
            r"|임대인[^.\n]*요구(하면|하는\s*경우|시)[^.\n]*(즉시|바로)?[^.\n]*(퇴거|명도|비워|나가)"
        ),
    ),
    _Risk(
        "excessive_penalty",
        "과도한 위약금·보증금 몰수",
        "high",
        None,
        "보증금 몰수나 과도한 손해배상 예정은 민법 제398조로 "
        "감액될 수 있고, 임차인에게 불리한 약정은 다툼이 됩니다.",
        "위약금은 계약금 상당액(보증금의 10%)으로 하고, 보증금 몰수 조항은 삭제하세요.",
        _excessive_penalty,
    ),
    _Risk(
        "deposit_after_new_tenant",
        "새 임차인이 들어와야 보증금 반환",
        "high",
        "주택임대차보호법/제4조",
        "보증금 반환을 새 임차인 입주에 묶으면 반환이 한없이 "
        "늦어집니다. 보증금을 받을 때까지 임대차는 존속하고(제4조②) "
        "임차권등기명령(제3조의3)을 신청할 수 있습니다.",
        "임대인은 계약 종료일에 새 임차인 유무와 관계없이 보증금을 반환한다.",
        _pattern(
            r"(새로운|신규|다음|후속)\s*임차인[^.\n]*(구해|구할|구하|입주|들어|계약)[^.\n]*반환"
            r"|반환[^.\n]*(새로운|신규|다음|후속)\s*임차인"
        ),
    ),
    _Risk(
        "repairs_all_on_tenant",
        "모든 수선을 임차인이 부담",
        "medium",
        None,
        "주요 설비의 수선은 임대인의 의무입니다(민법 제623조). "
        "모든 수선을 임차인에게 지우면 분쟁이 잦습니다.",
        "소모품·경미한 수선은 임차인이, 보일러·배관 등 주요 설비의 수선은 임대인이 부담한다.",
        _pattern(
            r"(모든|일체의?|전부의?)\s*(수선|수리)[^.\n]*임차인|(수선|수리)[^.\n]*(모두|전부|일체)[^.\n]*임차인"
            r"|임차인[^.\n]*(모든|일체의?|전부의?)\s*(수선|수리)"
        ),
    ),
    _Risk(
        "restoration_overbroad",
        "과도한 원상복구",
        "low",
        None,
        "통상의 사용으로 생긴 손모까지 복구하게 하면 보증금 공제 다툼이 생깁니다.",
        "원상복구는 임차인의 고의·과실로 인한 훼손에 한하며 통상의 손모는 제외한다.",
        _pattern(r"원상\s*(복구|회복)[^.\n]*(통상|자연|노후|일체|전부|모든|새것)"),
    ),
    _Risk(
        "short_term",
        "2년 미만 기간",
        "low",
        "주택임대차보호법/제4조",
        "2년 미만으로 정한 기간은 2년으로 봅니다. 임차인만 "
        "짧은 기간이 유효하다고 주장할 수 있습니다(제4조①).",
        "임대차 기간은 24개월로 한다(임차인이 원하면 더 짧게 정할 수 있다).",
        lambda sentence: (clause_term_months(sentence) or 24) < 24,
    ),
)


def clauses(text: str) -> list[str]:
    """The contract cut into sentences (문장), each one a quotable clause."""
    parts = re.split(r"\n+|(?<=다\.)\s+|(?<=[.。])\s+(?=제\s*\d+\s*조)", text)
    return [p.strip() for p in parts if p and p.strip()]


def review_contract(text: str) -> list[Finding]:
    """Every finding in a lease text, most serious first; an empty text yields no findings."""
    if not text.strip():
        return []
    findings = [_missing(e) for e in ESSENTIALS if not e.present.search(text)]
    findings += _missing_rent(text)
    for sentence in clauses(text):
        findings += [_found(risk, sentence) for risk in RISKS if risk.matches(sentence)]
    return sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity])


def _missing_rent(text: str) -> list[Finding]:
    """A lease must say whether it is 전세 or what the 월차임 is."""
    if re.search(r"월\s*세|차임|월\s*임대료|전세", text):
        return []
    return [
        Finding(
            "missing_rent",
            "차임(월세) 또는 전세 여부",
            "high",
            None,
            "주택임대차보호법/제7조",
            "차임 액수와 지급일, 또는 전세라는 점이 없습니다.",
            "차임은 매월 ○일에 금 ○○원을 지급한다.",
        )
    ]


def _missing(essential: _Essential) -> Finding:
    return Finding(
        essential.code,
        f"{essential.title} 조항 없음",
        essential.severity,
        None,
        essential.article_id,
        essential.reason,
        essential.suggestion,
    )


def _found(risk: _Risk, sentence: str) -> Finding:
    quote = sentence if len(sentence) <= MAX_QUOTE else sentence[: MAX_QUOTE - 1] + "…"
    return Finding(risk.code, risk.title, risk.severity, quote, risk.article_id, risk.reason, risk.suggestion)
