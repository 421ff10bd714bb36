"""What a question asks for, by weighted word groups: the rules classifier and its vocabulary.

Each signal is a pattern with a topic (what the person talks about; the catalogue of intents,
services/housing/intent_catalogue.py, says which intent a topic argues for) and a weight: 3-5 for words
that settle a question on their own (시세, 대출, 계약서 작성해줘), 2 for words that lean (가격, 한도), 1
for hints (되나요). The planner reads the same topics to choose its steps, so one vocabulary serves both.

How the intent is chosen: a question that asks for an overall view, or touches three domains strongly,
is COMPREHENSIVE. Otherwise the question is cut into clauses ("…알려주고 …해줘") and the first clause
with a real signal decides: people ask first for what they came for and add errands after it ("시세 알려주고
계약서도 작성해줘" is a market question with a document errand). Within the clause the highest score
wins; ties go to the more specific intent (the catalogue's order). Confidence grows with the winner's
score and with its lead over the runner-up, and drops when other clauses point elsewhere.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from contracts.entities import QueryEntities
from contracts.values import Intent, IntentType
from services.housing.amounts import CONVERSION
from services.housing.constraints import stated_with_figures
from services.housing.contract_text import looks_like_contract
from services.housing.conversation import FACT_LABELS
from services.housing.entities import extract_entities
from services.housing.intent_catalogue import BY_SPECIFICITY, DOMAINS, INTENT_OF_TOPIC, Topic
from services.housing.money import DEMAND_VERBS
from services.housing.places import compact
from services.housing.statute_answers import answer_for
from services.housing.statute_match import statute_headings
from services.housing.text import normalize
from services.housing.vocabulary import (
    AUCTION_CLAIM,
    BROKERAGE_FEE_WORDS,
    COMPLEX_FACTS_ASKED,
    DEPOSIT_AT_RISK_WORDS,
    DEPOSIT_GUARANTEE_WORDS,
    DUTY_ASKED_WORDS,
    HOME_KIND_WORDS,
    HOUSING_SUPPORT_WORDS,
    INVEST_WORDS,
    JUDGED,
    JUDGED_WORDS,
    LOAN_NAMED_WORDS,
    MARKET_PRICE_WORDS,
    RENT_CUT_WORDS,
    RENT_RAISE_WORDS,
    RULE_ASK_WORDS,
    TENANT_RIGHTS_WORDS,
    only_tells,
)

if TYPE_CHECKING:
    from services.planner.evidence import Neighbour

I = IntentType  # noqa: E741  (short alias keeps the vocabulary table readable)


@dataclass(frozen=True)
class Signal:
    topic: Topic
    weight: float
    pattern: re.Pattern[str]
    # Words of everyday speech ("…하는 법", "사도 될까", "당했어요") that weigh only in a question already
    # about housing: "비트코인 사도 될까요?" is no question for Jipsa.
    needs_housing: bool = False
    # Words just before that make the match mean something else ("얼마 있어야 돼요" is no duty asked).
    not_after: re.Pattern[str] | None = None

    @property
    def intent(self) -> IntentType | None:
        """The intent the topic's words argue for (services/housing/intent_catalogue.py)."""
        return INTENT_OF_TOPIC.get(self.topic)


@dataclass(frozen=True)
class Hit:
    signal: Signal
    word: str
    start: int


def _signals(*rows: tuple[Topic, float, str]) -> tuple[Signal, ...]:
    return tuple(
        Signal(t, w, re.compile(p, re.IGNORECASE), p in _EVERYDAY, _NOT_AFTER.get(p)) for t, w, p in rows
    )


_REQUEST = r"[가-힣\s]{0,4}?(?:줘|주세요|주실|줄래|주라|부탁|해\s*줘|해\s*주|드려|달라)"
_HARM = r"당했|피해|구제|대처|대응"
_BUY_OR_NOT = (
    r"(?:사도|매수해도|구매해도|투자해도|사야|사는\s*게)\s*(?:될까|되나|돼|괜찮|좋을까|맞을까|할까)"
    r"|살까\s*말까"
)
_EVERYDAY = frozenset((_HARM, _BUY_OR_NOT))
# What one must have or bring ("얼마 있어야 돼요", "뭐 준비해야 돼요", "서류 챙겨야 하나요") is a practical
# question of money or papers, not a duty the rules set.
_NOT_AFTER = {DUTY_ASKED_WORDS: re.compile(r"얼마|돈|뭐|무엇|서류|준비|챙겨")}
NOT_AFTER_CHARS = 12
SIGNALS = _signals(
    (
        Topic.LEGAL,
        3,
        r"임대차\s*보호법?|보호법|법률|법적|법령|법조항|(?<![방는])(?<!는\s)법(?!인)|조항|조문|판례|시행령|legal|law",
    ),
    (
        Topic.LEGAL,
        3,
        TENANT_RIGHTS_WORDS,
    ),
    # What a tenant gets back at auction is the law's question, whatever risk word ("경매") it holds.
    (Topic.LEGAL, 5, AUCTION_CLAIM.pattern),
    (
        Topic.LEGAL,
        3,
        rf"임차권\s*등기|내용\s*증명|{BROKERAGE_FEE_WORDS.pattern}|원상\s*복구|수선|권리금",
    ),
    (
        Topic.LEGAL,
        3,
        r"(?:보증금|전세금).{0,6}(?:반환|돌려|못\s*받|안\s*(?:줘|주|준|줄))|퇴거|명도"
        rf"|{DEPOSIT_GUARANTEE_WORDS}",
    ),
    (Topic.LEGAL, 3, _HARM),
    (Topic.TAX, 3, r"취득세|양도\s*(?:소득)?세|보유세|재산세|종부세|종합\s*부동산세"),
    (
        Topic.LEGAL,
        2,
        r"의무|권리|해지|해제|위약금|계약금|세입자|임차인|임대인|집주인|거부|분쟁|소송"
        r"|위반|불법|위법|처벌|고소|고발",
    ),
    (Topic.LEGAL, 2, r"주의\s*사항|유의\s*사항|확인할\s*(?:것|사항)|체크\s*리스트"),
    # What one must do ("돌려줘야 하나요", "구청에 알려야 하나요", "신고해야 돼요") and what the state does
    # ("구청에서 확인하나요", "나라에서 조사하나요") are what rules say, whatever price or loan word is near.
    (Topic.LEGAL, 3, DUTY_ASKED_WORDS),
    (
        Topic.LEGAL,
        1,
        r"가능한가|가능한지|되나요|될까요|어떻게\s*(?:하|해)|언제까지|만료|만기",
    ),
    (Topic.RENT_CHANGE, 3, rf"{RENT_RAISE_WORDS}|{RENT_CUT_WORDS}|전환\s*율"),
    # A new figure asked for the rent or deposit: "월세를 70 달라는데", "보증금 4억으로 하재요".
    (
        Topic.RENT_CHANGE,
        3,
        rf"(?:\d|[억천만원])\s*(?:으로|로|더)?\s*(?:해\s*)?(?:{DEMAND_VERBS})",
    ),
    (
        Topic.RENT_CHANGE,
        3,
        rf"{CONVERSION.pattern}|5\s*%\s*(?:룰|상한|제한)",
    ),
    (Topic.MARKET, 3, MARKET_PRICE_WORDS),
    (
        Topic.MARKET,
        3,
        r"평균\s*가격|매물|시장\s*(?:상황|전망)|가격\s*(?:대|변화|흐름)|price",
    ),
    (Topic.MARKET, 2, r"가격|얼마|오르|올랐|내렸|떨어|상승|하락|추천|싼|저렴|비싼|싸게"),
    (Topic.MARKET, 1, r"찾아|구해|알아봐|보여|시장"),
    (
        Topic.LOAN,
        3,
        rf"{LOAN_NAMED_WORDS}|금리|이자|원리금|상환",
    ),
    (Topic.LOAN, 3, r"대환|융자|모기지|loan|mortgage"),
    # A loan application asked for ("대출 신청 준비 체크리스트") is the loan's, legal as a checklist sounds.
    (Topic.LOAN, 2, r"대출\s*신청|(?:대출|주담대).{0,12}체크\s*리스트"),
    (Topic.LOAN, 2, r"한도|신용|소득|연봉"),
    (Topic.POLICY, 2, HOUSING_SUPPORT_WORDS),
    (Topic.POLICY, 2, r"행복주택|공공\s*임대|임대\s*주택|주거\s*급여|(?:월세|전세)\s*지원"),
    (
        Topic.CONTRACT_WRITE,
        5,
        rf"계약서?.{{0,12}}(?:작성|만들|써|초안|준비|뽑){_REQUEST}",
    ),
    # "표준계약서" alone is a subject of the law ("표준계약서 사용이 의무인가요?"); its form is a document.
    (Topic.CONTRACT_WRITE, 3, r"계약서\s*(?:양식|서식|템플릿|초안|샘플)"),
    # "특약 넣어서 써줘" asks for the document; "특약에 뭘 넣어야 해요?" asks what to put (the law answers).
    (
        Topic.CONTRACT_WRITE,
        3,
        r"특약(?:(?!뭘|뭐|무엇|어떤|어떻게).){0,8}(?:넣|추가|작성|써)(?!\s*(?:야|어야|면|으면|두면))",
    ),
    (Topic.CONTRACT_WRITE, 2, r"계약서\s*작성|lease contract"),
    (
        Topic.CONTRACT_CHECK,
        5,
        r"(?:계약서|계약\s*내용|계약\s*조건|특약|조항).{0,12}"
        r"(?:검토|봐\s*줘|봐\s*주|점검|체크|살펴|문제\s*(?:없|있)|괜찮은지|이상\s*없)",
    ),
    (
        Topic.CONTRACT_CHECK,
        4,
        r"독소\s*조항|불리한\s*(?:조항|특약|내용|조건)|이\s*계약서|계약서를?\s*받",
    ),
    (
        Topic.CONTRACT_CHECK,
        5,
        r"(?:서명|사인|도장|날인)\s*(?:해도|하면|할까|찍어도|찍으면)",
    ),
    (Topic.CONTRACT_CHECK, 2, r"검토"),
    (
        Topic.RISK,
        4,
        rf"{DEPOSIT_AT_RISK_WORDS}|등기부|근저당|선순위|가압류|압류|경매",
    ),
    (Topic.RISK, 3, r"사기|(?:계약해도|들어가도|입주해도)\s*(?:될까|되나|돼|괜찮)"),
    (Topic.RISK, 2, r"믿을\s*수|괜찮은\s*(?:집|매물)"),
    (Topic.INVEST, 3, INVEST_WORDS),
    (Topic.INVEST, 2, r"가치"),
    (
        Topic.OVERALL,
        4,
        r"종합|전반|전체적|총체|다각도|모든\s*면|한\s*번에\s*다|전부\s*(?:분석|알려|검토)",
    ),
    (Topic.OVERALL, 4, _BUY_OR_NOT),
    (
        Topic.ANALYSIS_ASK,
        0,
        r"계산|시뮬|평가|분석|비교|판단|따져|산정|산출|진단|적정|타당|가능\s*(?:한\s*)?금액|" + JUDGED_WORDS,
    ),
)

DECIDING_WEIGHT = 3  # a word this heavy settles a question by itself
TASK_REQUEST_WEIGHT = 5  # a task asked for by name: "계약서 작성해줘", "특약 검토해줘"
MIN_SCORE = 2  # below this the question is too vague to plan

# "…하고 " joins two clauses; 신고·광고·경고·공고·최고 are nouns that only end in 고. "…랑 " joins two
# things asked ("시세랑 주의할 점 알려줘").
_CLAUSE_BREAK = re.compile(
    r"(?<=[가-힣])(?<![신광경공최])고\s+|(?<=[가-힣])랑\s+|그리고|그리고\s*나서|및|또한|[,.?!;\n]+"
)
_HOUSING_WORDS = re.compile(
    r"집(?!사)|부동산|이사|동네|주거|거주|살\s*곳|방\s*(?:구|보러|얻)|매물|임대|임차|계약|보증금|관리비"
    r"|house|home|rent|real estate",
    re.IGNORECASE,
)
_DEAL_NOUNS = re.compile(r"매매|전세|월세|분양|매수|매입|임대|임차")
_INTERNALS = re.compile(
    r"프롬프트|prompt|시스템\s*(?:메시지|설정|지시)|지시\s*문|지침|instructions?|비밀\s*번호|패스\s*워드|password|api\s*키|api[\s_-]*key"
    r"|토큰|token|설정\s*파일|환경\s*변수|소스\s*코드|관리자\s*(?:계정|권한|모드|페이지)|접속\s*(?:정보|계정)"
    r"|데이터\s*베이스|(?:지시|명령|규칙)\w*\s*(?:은|는|을|를)?\s*(?:모두|전부|다)?\s*무시|ignore\s+(?:all|previous)",
    re.IGNORECASE,
)
_SMALL_TALK = re.compile(
    r"안녕|하이|헬로|hello|\bhi\b|hey|ㅎㅇ|반가|고마|감사|땡큐|thank|thx|ㄱㅅ|ㅋㅋ|ㅎㅎ|ㅠㅠ|ㅜㅜ|뭐\s*해|뭐함|잘\s*자|"
    r"굿모닝|좋은\s*아침|날씨|심심|배고|누구야|누구세요|이름이\s*뭐|잘\s*지내|수고|바이|\bbye\b|ㅂㅂ|^(?:네|응|ㅇㅇ|ok|오케이|알겠)",
    re.IGNORECASE,
)


# A price word that labels a figure the person gives ("매매가 5억짜리", "시세 10억 아파트") states a fact of
# their case; it does not ask what the market is.
_LABELS_AMOUNT = re.compile(r"\s*(?:은|는|이|가|가격|도)?\s*(?:약\s*)?\d")
# A thing said to be absent ("대출은 없대요", "근저당 없는 집") is a fact of the case, not what is asked.
_SAID_ABSENT = re.compile(r"(?:은|는|이|가|도)?\s*(?:전혀\s*|하나도\s*)?없(?:어|대|다|고|는|음|습|으|던)")
# Both the price of the home and the deposit on it, given: the jeonse-ratio question (전세가율), weighed
# like a deciding word and one more, since no market or legal word is as specific.
GIVEN_PRICES_WEIGHT = 4.0


def find_hits(text: str) -> list[Hit]:
    """Every signal word in the text, and each clause's statute evidence, in order of position."""
    text = normalize(text)
    hits = [
        Hit(s, m.group(0), m.start())
        for s in SIGNALS
        for m in s.pattern.finditer(text)
        if not (s.topic is Topic.MARKET and _LABELS_AMOUNT.match(text, m.end()))
        and not _SAID_ABSENT.match(text, m.end())
        and not (s.not_after and s.not_after.search(text[max(0, m.start() - NOT_AFTER_CHARS) : m.start()]))
    ]
    for start, end in _clauses(text):
        # A clause that asks for a task by name (계약서 작성해줘, 특약 검토해줘) is that task, whatever
        # statutes also speak of its subject.
        if any(start <= h.start < end and h.signal.weight >= TASK_REQUEST_WEIGHT for h in hits):
            continue
        if hit := _statute_hit(text[start:end], start):
            hits.append(hit)
        if answer := answer_for(text[start:end]):
            hits.append(Hit(_ANSWERED_BY_LAW, answer.subject, start))
    if looks_like_contract(text):
        hits.append(Hit(_CONTRACT_PASTED, "계약서 본문", 0))
    return sorted(hits, key=lambda hit: hit.start)


# How strongly a clause's match with the statutes' headings (services/housing/statute_match.py) argues
# for a legal question: nothing below STATUTE_FLOOR (a place and a price share a bigram or two with some
# heading), then one point of weight per STATUTE_STEP of idf, up to a deciding word's weight and one more.
# Market and loan questions score up to about 7 (a lean of 2 at most, which their own words outweigh); a
# question naming a law's or an article's subject (자격시험, 거래신고, 공시지가, 관리주체) scores 9 and up.
STATUTE_FLOOR, STATUTE_STEP, STATUTE_MAX_WEIGHT = 4.0, 1.5, 4.0
# Marks the hits that come from the product's own evidence (the statutes' headings, the statute answers
# book, a pasted contract) rather than from a word of the question; it matches no text itself.
EVIDENCE = re.compile(r"(?!)")
_RULE_ASK = re.compile(RULE_ASK_WORDS)


# A clause on a subject the statute answers book (infra/seed/legal/answers.toml) answers in one sentence
# is a question of law, as surely as a deciding word.
_ANSWERED_BY_LAW = Signal(Topic.LEGAL, DECIDING_WEIGHT, EVIDENCE)
# The contract itself, pasted: reviewing it is the task asked.
_CONTRACT_PASTED = Signal(Topic.CONTRACT_CHECK, TASK_REQUEST_WEIGHT, EVIDENCE)


def _statute_hit(clause: str, start: int) -> Hit | None:
    match = statute_headings().match(clause)
    weight = min(STATUTE_MAX_WEIGHT, max(0.0, (match.score - STATUTE_FLOOR) / STATUTE_STEP))
    if weight < 1 or match.law is None:
        return None
    weight += 1.0 if _RULE_ASK.search(clause) else 0.0  # asked as a question of rules, not of prices
    signal = Signal(Topic.LEGAL, round(weight, 2), EVIDENCE)
    return Hit(signal, match.law, start)


def is_evidence(hit: Hit) -> bool:
    """A hit from the product's own evidence (its word is a law, a subject or "계약서 본문"), not a word of
    the question."""
    return hit.signal.pattern is EVIDENCE


def clause_topics(clause: str, entities: QueryEntities) -> set[Topic]:
    """The topics a clause is about: a topic's words must together weigh as much as one deciding word
    (the listing words count for the market); an analysis ask counts whenever it is there."""
    totals = dict.fromkeys(Topic, 0.0)
    for hit in find_hits(clause):
        totals[hit.signal.topic] += hit.signal.weight if hit.signal.intent else DECIDING_WEIGHT
    totals[Topic.MARKET] += _listing_words(clause, entities)
    return {topic for topic, total in totals.items() if total >= DECIDING_WEIGHT}


def is_small_talk(query: str) -> bool:
    """Greetings, thanks and chit-chat without a word about housing, or text with no words at all:
    nothing a plan (or an LLM call) can help with."""
    text = normalize(query).strip()
    if not re.search(r"\w", text) or re.fullmatch(r"[\W_]+", text):
        return True
    if _HOUSING_WORDS.search(text) or any(h.signal.weight >= MIN_SCORE for h in find_hits(text)):
        return False
    return bool(_SMALL_TALK.search(text)) and len(text) <= 40


class Evidence(Protocol):
    """What else than words may say a question's intent (evidence.py: the nearest labelled example)."""

    def nearest(self, text: str) -> Neighbour | None: ...


def classify(query: str, entities: QueryEntities | None = None, evidence: Evidence | None = None) -> Intent:
    """The intent of a question, with the words that decided it and the question's entities. With
    `evidence`, a question the words leave unsure of (no deciding word for its intent, nothing the statutes
    settle, not a request for internals) takes the intent of its nearest labelled example, if one is near."""
    text = normalize(query)
    entities = entities if entities is not None else extract_entities(text)
    intent_type, confidence, keywords, open_to = _decide(text, entities)
    if evidence is not None and open_to and (neighbour := evidence.nearest(text)) is not None:
        if neighbour.intent is not intent_type and neighbour.intent in open_to:
            intent_type, confidence = neighbour.intent, round(0.8 * neighbour.similarity, 2)
    return Intent(
        type=intent_type,
        confidence=round(confidence, 2),
        keywords=keywords,
        entities=entities,
    )


# What the nearest example may make of a question the words leave unsure: an unclear question or one of a
# bare lean anything; one about nothing of housing a question of law in everyday words ("땅값이 어떻게
# 움직이는지 나라에서 따로 조사하나요?") but never a market or loan question ("연말정산 환급 얼마나 받아?"
# is near a DSR question); one only the statutes' headings call legal, nothing but off-topic.
_SETTLED: frozenset[IntentType] = frozenset()
_ANY = frozenset(IntentType)
_NOT_HOUSING_OPEN_TO = frozenset({I.LEGAL_CONSULT})
_HEADINGS_ONLY_OPEN_TO = frozenset({I.IRRELEVANT})


def _decide(text: str, entities: QueryEntities) -> tuple[IntentType, float, list[str], frozenset[IntentType]]:
    """The intent, its confidence, its words, and what other evidence may change it to (nothing when the
    words settle it)."""
    if not re.search(r"\w", text):
        return I.UNCLEAR, 0.9, [], _SETTLED
    if is_small_talk(text):
        return I.IRRELEVANT, 0.95, _words(m.group(0) for m in _SMALL_TALK.finditer(text)), _SETTLED
    if asks_about_internals(text) and not _HOUSING_WORDS.search(text):
        # "관리자 비밀번호 뭐야?": 관리자 is in the statutes, the request is not; no evidence overrides it
        return I.IRRELEVANT, 0.9, [], _SETTLED
    if (meaning := answer_for(text)) and meaning.defines and len(_clauses(text)) == 1:
        # "반전세가 정확히 뭐예요?": what a word means, which the answer book says; no market search
        return I.LEGAL_CONSULT, 0.9, [meaning.subject], _SETTLED
    if only_tells(text) and _tells_facts(entities):
        # "지금 전세 2억에 살아요": nothing asked yet; the facts are kept for the next turn, the answer
        # says so and what it can be asked (services/supervisor/response.guidance)
        return I.UNCLEAR, 0.7, [], _SETTLED
    hits = find_hits(text)
    about_law = statute_headings().match(text).score >= STATUTE_FLOOR
    about_housing = _HOUSING_WORDS.search(text) or _names_anything(entities, text) or about_law
    if not about_housing and not any(
        h.signal.weight >= DECIDING_WEIGHT and not h.signal.needs_housing for h in hits
    ):
        # "점심 메뉴 추천해줘": lean words alone are not about housing
        return I.IRRELEVANT, 0.8, [], _NOT_HOUSING_OPEN_TO
    whole = _scores(hits, text, entities)
    if _asks_overall(hits, whole):
        strong = [h.word for h in hits if h.signal.intent and h.signal.weight >= DECIDING_WEIGHT]
        return I.COMPREHENSIVE, _confidence(whole[I.COMPREHENSIVE] + 3, 0), _words(strong), _SETTLED
    for start, end in _asked_first(text, _clauses(text)):
        clause_hits = [h for h in hits if start <= h.start < end]
        scores = _scores(clause_hits, text[start:end], entities)
        winner = max(BY_SPECIFICITY, key=lambda i: (scores[i], -BY_SPECIFICITY.index(i)))
        if scores[winner] < DECIDING_WEIGHT and _told_elsewhere(whole, winner):
            # "…1억 5천을 월세로 바꾸자고 해요. 월세 최대 얼마까지?": a bare "얼마" asks about what the
            # other sentence told, which a heavier word there names
            continue
        if scores[winner] >= MIN_SCORE:
            runner_up = max(v for i, v in scores.items() if i != winner)
            confidence = _confidence(scores[winner], runner_up)
            if _points_elsewhere(whole, winner):
                confidence *= 0.9
            settled = scores[winner] >= DECIDING_WEIGHT or any(
                h.signal.intent is winner and h.signal.weight >= DECIDING_WEIGHT for h in hits
            )
            return winner, confidence, _keywords(hits, winner, entities), _SETTLED if settled else _ANY
    if about_law:  # nothing else argues, and the statutes have a heading on it: ask them (cheap) first
        return I.LEGAL_CONSULT, 0.4, _words(h.word for h in hits), _HEADINGS_ONLY_OPEN_TO
    return I.UNCLEAR, 0.6, _words(h.word for h in hits), _ANY


def _tells_facts(entities: QueryEntities) -> bool:
    """The person's own figures: their lease, income, the home's price or its debt."""
    return any(getattr(entities, name) is not None for name in FACT_LABELS)


def _scores(hits: list[Hit], text: str, entities: QueryEntities) -> dict[IntentType, float]:
    scores = dict.fromkeys(BY_SPECIFICITY, 0.0)
    for hit in hits:
        if hit.signal.intent:
            scores[hit.signal.intent] += hit.signal.weight
    scores[I.MARKET_INQUIRY] += _listing_words(text, entities)
    if entities.sale_price_manwon and entities.deposit_manwon:
        scores[I.RISK_ANALYSIS] += GIVEN_PRICES_WEIGHT
    return scores


def _listing_words(text: str, entities: QueryEntities) -> float:
    """What a listing search is made of (where, what, which deal, how big or how much), named in this
    text: each argues a little for a market question."""
    places = entities.gu + entities.dong + entities.stations
    named_place = any(p[:-1] in text for p in places)
    named_size = bool(entities.size_text and entities.size_text in text)
    kinds = entities.property_types and re.search(HOME_KIND_WORDS, text, re.IGNORECASE)
    deal = entities.deal_type and re.search(r"매매|전세|월세|단기", text)
    priced = _bounded(entities.price_min_manwon, entities.price_max_manwon) or _bounded(
        entities.monthly_rent_min_manwon, entities.monthly_rent_max_manwon
    )
    # A price the person asks to be judged ("12억이면 바가지 아닌가요?") is no bound, but is a price named.
    priced = priced or bool(entities.amounts_manwon and JUDGED.search(text))
    # A condition on complexes (세대수, 준공, 도보 분) is asked only of listings, and so are two
    # complexes set side by side ("헬리오시티랑 잠실엘스") and what the listings record of one named
    # ("래미안퍼스티지 세대수 몇이에요?"): each decides by itself.
    conditions = DECIDING_WEIGHT * (
        stated_with_figures(entities.conditions_said)
        or len(entities.complexes) > 1
        or bool(entities.complexes and COMPLEX_FACTS_ASKED.search(text))
    )
    named_place = named_place or any(c in compact(text) for c in entities.complexes)
    return (
        float(named_place)
        + float(bool(kinds))
        + float(named_size)
        + 0.5 * bool(deal)
        + float(priced)
        + conditions
    )


def _bounded(low: int | None, high: int | None) -> bool:
    """A price limit ("1000 이하", "3억~4억"), as a search has, not one amount ("보증금 1억을")."""
    return (low is None) != (high is None) or (low is not None and low != high)


def _asks_overall(hits: list[Hit], whole: dict[IntentType, float]) -> bool:
    """Asked for everything by name, or about three domains at once; not a task asked for by name (a
    pasted contract to review speaks of deposits, 근저당 and law, and is still a review)."""
    explicit = any(h.signal.topic is Topic.OVERALL for h in hits)
    if any(h.signal.weight >= TASK_REQUEST_WEIGHT for h in hits):
        return explicit
    strong_domains = sum(1 for i in DOMAINS if whole[i] >= DECIDING_WEIGHT)
    return explicit or strong_domains >= 3


def _told_elsewhere(whole: dict[IntentType, float], winner: IntentType) -> bool:
    return any(v >= DECIDING_WEIGHT and v > whole[winner] for i, v in whole.items() if i != winner)


def _points_elsewhere(whole: dict[IntentType, float], winner: IntentType) -> bool:
    return any(v >= DECIDING_WEIGHT for i, v in whole.items() if i != winner)


def _confidence(top: float, runner_up: float) -> float:
    """0.35 for a bare lean, up to 0.95 for a heavy, unopposed signal."""
    lead = (top - runner_up) / top if top > 0 else 0.0
    strength = 1 - math.exp(-top / 3)
    return min(0.95, 0.35 + 0.75 * lead * strength)


# How a sentence that asks ends: a question mark, a question's ending, or a request. In "중개사가 근저당
# 얘기를 안 했어요. 공인중개사법 위반 아닌가요?" the first sentence tells the case and the second asks.
_SENTENCE_END = re.compile(r"[.?!\n]+")
_ASKING_END = re.compile(
    r"(?:나요|까요|가요|인가|는지|은지|을지|냐|니|죠|줘|주세요|줄래|알려|궁금|뭐(?:예요|에요|죠)?|얼마)\s*$"
)


def _asked_first(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The clauses of the sentences that ask, in order, then those of the sentences that tell: what is
    asked decides the intent (within a sentence, "시세 확인하고 대출 계산해줘", the first task leads)."""
    asking: list[tuple[int, int]] = []
    start = 0
    for end in [m.start() for m in _SENTENCE_END.finditer(text)] + [len(text)]:
        sentence = text[start:end].rstrip(" ~;")
        if text[end : end + 1] == "?" or _ASKING_END.search(sentence):
            asking += [(s, e) for s, e in spans if start <= s < max(end, start + 1)]
        start = end + 1
    return asking + [span for span in spans if span not in asking]


def split_clauses(text: str) -> list[str]:
    """The clauses of a question: "시세 알려주고 계약서 작성해줘" -> ["시세 알려주", "계약서 작성해줘"]."""
    return [text[start:end] for start, end in _clauses(text)]


def _clauses(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in _CLAUSE_BREAK.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def _keywords(hits: list[Hit], winner: IntentType, entities: QueryEntities) -> list[str]:
    words = [h.word for h in hits if h.signal.intent is winner]
    return _words(words or entities.gu + entities.dong + entities.stations)


def _names_anything(entities: QueryEntities, text: str) -> bool:
    """A place, a kind of home or a deal named: a deal read from a verb alone ("사도 될까") names none."""
    deal = entities.deal_type is not None and _DEAL_NOUNS.search(text)
    places = entities.gu or entities.dong or entities.stations or entities.complexes
    return bool(places or entities.property_types or deal)


def asks_about_internals(text: str) -> bool:
    """A request for how Jipsa is made or run (its prompts, settings, credentials) or to drop its
    instructions: answered with guidance, whatever statute words it holds."""
    return bool(_INTERNALS.search(text))


def _words(words: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(w.strip() for w in words if w.strip()))[:10]
