"""What each step of a rules plan does, in the question's own terms: its task line ("강남구 아파트 전세
시세·매물 조회", "주택임대차보호법 차임·보증금 증액 제한(5%) 조항 검색"), shown in the plan and the todos."""

from __future__ import annotations

import re

from contracts.entities import QueryEntities
from contracts.values import Intent, IntentType
from services.housing.amounts import CONVERSION
from services.housing.entities import asked_bounds_text
from services.housing.intent_catalogue import INTENTS, StepId, Topic
from services.housing.labels import DEAL_LABELS, PROPERTY_LABELS
from services.housing.money import format_manwon
from services.housing.vocabulary import (
    BROKERAGE_FEE_WORDS,
    CONTRACT_TERMS_WORDS,
    DEPOSIT_GUARANTEE_WORDS,
    ELIGIBILITY_WORDS,
    LOAN_RATIOS,
    RENT_CUT_WORDS,
    RENT_RAISE_WORDS,
)
from services.planner.intents import find_hits, is_evidence

S = StepId

# (words, law, provision): the statutes and provisions a legal search looks for; a row without a
# provision names the law only, and the question's own legal words say what to look for in it.
_LEGAL_TOPICS = (
    (rf"{RENT_RAISE_WORDS}|5\s*%", "주택임대차보호법", "차임·보증금 증액 제한(5%)"),
    (rf"{RENT_CUT_WORDS}|내려", "주택임대차보호법", "차임·보증금 감액 청구"),
    (CONVERSION.pattern, "주택임대차보호법", "전월세 전환율"),
    (r"갱신|계약\s*연장|묵시적", "주택임대차보호법", "계약갱신요구권·묵시적 갱신"),
    (r"대항력|전입|확정\s*일자|우선\s*변제|최우선", "주택임대차보호법", "대항력·우선변제권"),
    (
        rf"(?:보증금|전세금).{{0,6}}(?:반환|돌려|못\s*받)|{DEPOSIT_GUARANTEE_WORDS}|임차권\s*등기",
        "주택임대차보호법",
        "보증금 반환·임차권등기명령",
    ),
    (r"사기|깡통|피해|구제", "주택임대차보호법", "임차보증금 보호·피해 구제"),
    (r"해지|해제|위약금|계약금", "주택임대차보호법", "계약 해지·계약금"),
    (r"수선|원상\s*복구", "주택임대차보호법", "수선 의무·원상복구"),
    (BROKERAGE_FEE_WORDS.pattern, "공인중개사법", "중개보수"),
    (r"거래\s*신고|신고\s*의무", "부동산 거래신고법", "거래 신고 의무"),
    (r"청약|분양", "주택법", "주택 공급·청약"),  # 분양 is the 주택법's 공급 in everyday words
    # A law's own subject names the law and nothing of the question's topic: "공인중개사가 되려면 어떤 자격"
    # is about 자격, and a provision guessed from "중개사" would pull the search to 중개보수.
    (r"중개사", "공인중개사법", None),
    (r"임대\s*사업자|민간\s*임대", "민간임대주택법", None),
    (r"특약|주의|유의|확인할|필수", "주택임대차보호법", "임대차 계약 시 주의사항"),
)
_LOAN_PRODUCTS = (
    (r"전세\s*자금|전세\s*대출|버팀목", "전세자금대출"),
    (r"디딤돌", "디딤돌대출"),
    (r"보금자리", "보금자리론"),
    (r"주택\s*담보|주담대|모기지", "주택담보대출"),
    (r"신용\s*대출", "신용대출"),
)
_LOAN_ASPECTS = (
    (r"한도|얼마|가능\s*(?:한\s*)?금액", "한도"),
    (r"금리|이자", "금리"),
    (LOAN_RATIOS, None),  # named as written
    (r"상환|원리금", "상환 조건"),
    (ELIGIBILITY_WORDS, "자격 요건"),
)
_POLICY_GROUPS = r"청년|신혼부부|신혼|생애\s*최초|다자녀|무주택|고령자|대학생"


def task_for(
    step_id: StepId, query: str, entities: QueryEntities, intent: Intent, planned: set[StepId]
) -> str:
    """The step's task in Korean, specific to the question ("강남구 아파트 전세 시세·매물 조회")."""
    scope = _scope(entities)
    tasks = {
        S.SEARCH_LEGAL: lambda: _legal_task(query, intent.type),
        S.SEARCH_MARKET: lambda: _join(scope, _price_text(entities), "시세·매물 조회"),
        S.SEARCH_LOAN: lambda: _loan_task(query),
        S.ANALYZE_MARKET: lambda: _join(scope, "가격 적정성·시장 흐름 분석"),
        S.ANALYZE_RISK: lambda: _join(
            _scope(entities, with_deal=False), "전세 보증금 위험도(전세가율·권리관계) 분석"
        ),
        S.CHECK_RENT_INCREASE: lambda: _rent_change_task(query, entities),
        S.REVIEW_CONTRACT: lambda: _review_task(query),
        S.SIMULATE_LOAN: lambda: _loan_simulation_task(entities, scope if S.SEARCH_MARKET in planned else ""),
        S.ANALYZE_ROI: lambda: _join(scope, "투자 수익성·가치 평가"),
        S.MATCH_POLICY: lambda: _join(_words_in(_POLICY_GROUPS, query, "·"), "대상 주거 지원 정책 매칭"),
        S.COMPUTE_PRIORITY_REPAYMENT: lambda: "지역·보증금 기준 최우선변제(소액임차인) 대상 여부와 금액 계산",
        S.COMPUTE_BROKERAGE_FEE: lambda: "중개보수 상한(거래금액 × 상한요율, 한도액) 계산",
        S.COMPUTE_ACQUISITION_TAX: lambda: "매매가·취득 후 주택 수·지역 기준 취득세와 지방교육세 계산",
        S.COMPUTE_HOUSING_COST: lambda: "월세·관리비 등 매달 나가는 돈과 기간 합계 계산",
        S.DRAFT_LEASE: lambda: _lease_task(entities, S.SEARCH_MARKET in planned),
        S.DRAFT_SALE: lambda: _join(scope, "부동산매매계약서 초안 작성(빈 항목은 사용자에게 확인)"),
        S.REVIEW_SALE_CONTRACT: lambda: "매매계약서 특약 검토(매수인 보호 특약·거래 신고 의무)",
        S.ASK_LOAN_APPLICANT: lambda: "대출 신청에 필요한 소득·주택 가격·보유 주택 수 확인",
        S.PREPARE_LOAN_CHECKLIST: lambda: "대출 신청 준비 체크리스트(서류·한도·금리) 작성",
    }
    return tasks[step_id]()


def _join(*parts: str | None) -> str:
    return " ".join(p for p in parts if p)


def _scope(entities: QueryEntities, with_deal: bool = True) -> str:
    """Where and what: "강남구 역삼동 30평대 아파트 전세"."""
    if entities.stations:
        where = "·".join(entities.stations) + " 인근"
    else:
        where = " ".join(["·".join(entities.gu), "·".join(entities.dong)]).strip()
    kinds = "·".join(PROPERTY_LABELS[p] for p in entities.property_types)
    deal = DEAL_LABELS.get(entities.deal_type or "", "") if with_deal else ""
    return _join(where, entities.size_text, kinds, deal)


def _price_text(entities: QueryEntities) -> str:
    return asked_bounds_text(entities)  # names 보증금 and 월세 apart: never "월세 1,000만원 이하"


def _words_in(pattern: str, text: str, sep: str) -> str:
    return sep.join(dict.fromkeys(re.findall(pattern, text, re.IGNORECASE)))


def _legal_task(query: str, intent: IntentType) -> str:
    found = [(law, what) for pattern, law, what in _LEGAL_TOPICS if re.search(pattern, query)]
    laws = "·".join(dict.fromkeys(law for law, _ in found))
    provisions = [what for _, what in found if what]
    if provisions:
        return f"{laws} {'·'.join(provisions[:3])} 조항 검색"
    if task := INTENTS[intent].legal_task:
        return task
    # The question's own legal words only: the law its words point at is the index's to find, and a
    # topic that is not the question's would pull the search toward the wrong articles.
    said = [
        h.word
        for h in find_hits(query)
        if h.signal.topic is Topic.LEGAL and h.signal.weight >= 2 and not is_evidence(h)
    ]
    words = "·".join(dict.fromkeys(said))
    if laws:
        return f"{laws} {words} 관련 조항 검색" if words else f"{laws} 조항 검색"
    return f"{words} 관련 법령 조항 검색".strip()


def _loan_task(query: str) -> str:
    product = next((name for pattern, name in _LOAN_PRODUCTS if re.search(pattern, query)), "주택 관련 대출")
    aspects = [
        name or found[0].upper()
        for pattern, name in _LOAN_ASPECTS
        if (found := re.search(pattern, query, re.IGNORECASE))
    ]
    return f"{product} {'·'.join(aspects) or '상품·조건'} 조회"


def _rent_change_task(query: str, entities: QueryEntities) -> str:
    amounts = entities.amounts_manwon
    if CONVERSION.search(query):
        return "전월세 전환율에 따른 보증금·월세 환산 계산"
    changes = [
        (now, asked)
        for now, asked in (
            (entities.deposit_manwon, entities.requested_deposit_manwon),
            (entities.monthly_rent_manwon, entities.requested_monthly_rent_manwon),
        )
        if now is not None and asked is not None
    ] or ([(amounts[0], amounts[1])] if len(amounts) >= 2 else [])
    if changes:
        before, after = changes[0]
        return f"{format_manwon(before)} → {format_manwon(after)} 증액이 5% 상한을 넘는지 계산"
    if entities.percent is not None:
        return f"{entities.percent:g}% 인상이 법정 상한(5%) 안인지 확인"
    return "보증금·차임 증액 가능 범위(5% 상한) 계산"


def _review_task(query: str) -> str:
    if re.search(CONTRACT_TERMS_WORDS, query):
        return "임대차 계약서 조항·특약의 위험 요소 검토"
    return "질문한 임대차 상황에 관련 법 조항을 적용해 판단"


def _loan_simulation_task(entities: QueryEntities, market_scope: str) -> str:
    basis = _price_text(entities) or (f"{market_scope} 시세" if market_scope else "")
    if basis:
        return f"{basis} 기준 대출 가능 금액·월 상환액 계산"
    return "대출 한도·금리 조건 비교 계산"


def _lease_task(entities: QueryEntities, after_search: bool) -> str:
    deal = DEAL_LABELS.get(entities.deal_type or "", "")
    basis = "조회한 매물 기준" if after_search else ""
    return _join(basis, deal, "주택임대차 표준계약서 초안 작성(빈 항목은 사용자에게 확인)")
