"""Follow-up questions: "그럼 서초구는?", "월세로는?", "30평대로 다시" continue the previous question.

A follow-up keeps the previous intent and entities and replaces only what the new text names; entities
travel in groups (a new place replaces the old 구, 동 and stations together, a new size its band and text).
A text is a follow-up when it is short, is shaped like one (그럼…, …는요?, …로는?, 다시, 대신, 말고) and
names something (a place, a kind, a figure, a complex of the listings); anything longer or unshaped is
a full question and is planned on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from contracts.entities import QueryEntities
from contracts.values import Intent
from services.housing.conversation import FACT_GROUPS, corrected_by, demanded_of
from services.housing.entities import extract_entities
from services.housing.intent_catalogue import GUIDANCE_INTENTS
from services.housing.places import default_gazetteer, regions_named
from services.housing.text import normalize
from services.housing.vocabulary import BROKERAGE_FEE_WORDS, POINTS_BACK, only_tells
from services.planner.intents import find_hits

MAX_FOLLOW_UP_CHARS = 30
_SHAPE = re.compile(
    r"^\s*(?:그럼|그러면|그렇다면|아니면|혹시)"
    r"|(?:은|는|이면|면|라면|로는|으로는|에서는|도|로|으로)\s*(?:요|어때요?|어떤가요|어때|어떨까요?)?\s*[?？.!]*\s*$"
    r"|다시|대신|말고|바꿔|바꾸면|로\s*해|으로\s*해|기준으로",
)
# Groups of fields that change together: a new place replaces every place field.
_GROUPS: tuple[tuple[str, ...], ...] = (
    ("gu", "dong", "stations"),
    ("property_types",),
    ("deal_type",),
    ("price_min_manwon", "price_max_manwon"),
    ("monthly_rent_min_manwon", "monthly_rent_max_manwon"),
    ("size_min_m2", "size_max_m2", "size_text"),
    ("amounts_manwon", "amounts"),
    ("percent", "raise_percent", "raise_percent_of"),
    ("dates",),
    ("term_months",),
    # What the turn says of the situation and asks (services/housing/reading.py), each replaced when said.
    ("debt_spoken_of",),
    ("no_debt_said",),
    ("guarantee_asked",),
    ("dsr_percent",),
    ("loan_limit_asked",),
    ("monthly_rent_spoken_of",),
    ("conversion_asked",),
    ("raise_asked",),
    ("lease_kinds_named",),
    ("since_last",),
    ("listings_asked",),
    ("market_level_asked",),
    ("count_asked",),
    ("rankings_asked",),
    *FACT_GROUPS,  # the person's facts told again (their lease, income, homes owned) replace the old
)


@dataclass(frozen=True)
class PriorTurn:
    """The session's previous run. `query` should be the question its plan was made from (the
    previous `Plan.context_query`), so a chain of follow-ups keeps the original question."""

    query: str
    intent: Intent


def is_follow_up(query: str, previous: PriorTurn | None, entities: QueryEntities | None = None) -> bool:
    """True when the text continues the previous question rather than asking a new one."""
    text = normalize(query).strip()
    if previous is None or previous.intent.type in GUIDANCE_INTENTS:
        return False
    if not text or len(text) > MAX_FOLLOW_UP_CHARS:
        return False
    if POINTS_BACK.search(text):  # "거기 세대수는요?": what it points at is the previous question's
        return True
    if not _SHAPE.search(text):
        return False
    entities = entities if entities is not None else extract_entities(text)
    return (
        bool(entities.model_dump(exclude_defaults=True))
        or any(h.signal.weight >= 2 for h in find_hits(text))
        or bool(default_gazetteer().complexes_named(text))  # "그럼 리센츠는요?"
        or bool(regions_named(text))  # "수원이면요?" after a question whose answer depends on the region
    )


def fee_inputs_from_before(text: str, named: QueryEntities, previous: PriorTurn | None) -> QueryEntities:
    """A question asking the brokerage fee that names no amount ("중개수수료는 최대 얼마예요?") is reckoned on
    the amounts of the turn before, even one that only stated the deal ("전세 4억짜리 계약하려고 해요"
    plans nothing of its own, so it is no question to follow up)."""
    if previous is None or named.amounts_manwon or not BROKERAGE_FEE_WORDS.search(text):
        return named
    before = previous.intent.entities
    return merge_entities(before, named) if before.amounts_manwon else named


def demand_from_before(text: str, named: QueryEntities, previous: PriorTurn | None) -> QueryEntities:
    """A turn that only demands a figure ("이번에 갱신하는데 80으로 올려달래요") is read against the lease the
    person stated before (the previous plan's entities carry what was said in every earlier turn): the
    figure becomes the new rent or deposit asked, and that lease comes along, so the raise is checked."""
    if previous is None or named.amounts_manwon:
        return named
    before = previous.intent.entities
    asked = demanded_of(text, before)
    if not asked:
        return named
    lease = {"deposit_manwon": before.deposit_manwon, "monthly_rent_manwon": before.monthly_rent_manwon}
    figures = [v for v in (*lease.values(), *asked.values()) if v is not None]
    return named.model_copy(update={**lease, **asked, "amounts_manwon": figures})


def answers_before(text: str, named: QueryEntities, previous: PriorTurn | None, needed: set[str]) -> bool:
    """Facts told with nothing asked ("신용대출 월 40씩 갚고 있고 집은 없어요") after a question whose answer
    reckons with them (`needed`: a loan's limit needs the income and homes owned) answer that question
    again with them: the person is giving what the answer said it lacked."""
    if previous is None or previous.intent.type in GUIDANCE_INTENTS or not only_tells(text):
        return False
    return any(getattr(named, name) is not None for name in needed)


def correction_from_before(text: str, named: QueryEntities, previous: PriorTurn | None) -> QueryEntities:
    """A turn that only tells a bare figure ("아 아니다 2억 2천이에요") after the person stated their lease or
    income corrects that fact (conversation.corrected_by): it is told, not asked, and later turns use it."""
    if previous is None or not only_tells(text):
        return named
    corrected = corrected_by(named, previous.intent.entities)
    return named.model_copy(update=corrected) if corrected else named


def merge_entities(before: QueryEntities, named: QueryEntities) -> QueryEntities:
    """`before` with every group the new text names replaced by what it names."""
    said = named.model_dump(exclude_defaults=True)
    changes: dict[str, object] = {}
    for group in _GROUPS:
        if any(field in said for field in group):
            changes.update({field: getattr(named, field) for field in group})
    return before.model_copy(update=changes)
