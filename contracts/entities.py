"""What a question names: places, property and deal kinds, money, sizes, dates.

The planner reads these once from the person's words (rules, never the LLM: numbers must be exact) and
puts them, typed, in `Intent.entities` (PlanReady v2; v1 carried a dict) and in every step's inputs
(`StepInputs.entities`: a team reads the fields). Money is in 만원 (10,000 KRW) as
integers; areas are supply area (공급면적) in m², the unit of the listings data: "N평대" is [N, N+10) 평,
"N평" is [N-1, N+1) 평, and an area written in m² ("84㎡", "전용 59") is exclusive area (전용면적) turned
into the supply band it implies at a 전용률 of 70-80 %. Every field is optional: absent means "not said".
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field

from contracts.frozen import Frozen


class PropertyType(StrEnum):
    APARTMENT = "apartment"  # 아파트
    OFFICETEL = "officetel"  # 오피스텔
    VILLA = "villa"  # 빌라, 다세대, 연립
    ONEROOM = "oneroom"  # 원룸, 투룸
    HOUSE = "house"  # 단독·다가구 주택
    COMMERCIAL = "commercial"  # 상가, 사무실


class DealType(StrEnum):
    SALE = "sale"  # 매매
    JEONSE = "jeonse"  # 전세: a lump-sum deposit, no monthly rent
    MONTHLY = "monthly"  # 월세 (반전세 included): deposit plus monthly rent
    SHORT_TERM = "short_term"  # 단기임대


class Ranking(StrEnum):
    CHEAPEST = "cheapest"
    PRICIEST = "priciest"
    NEAREST = "nearest"
    LARGEST = "largest"
    SMALLEST = "smallest"
    NEWEST = "newest"
    OLDEST = "oldest"


AmountRole = Literal[
    "deposit",
    "monthly_rent",
    "sale_price",
    "loan",
    "senior_debt",
    "debt",  # the person's own debts (기존 대출, 신용대출): their balance
    "debt_payment",  # what the person repays on them a month
    "income",
    "monthly_income",
    "fee",
    "holding_cost",  # 보유세 a year
    "assets",
    "price",
]
AmountChange = Literal["to", "by", "cut"]  # the new figure ("3억 5천으로"), an increase by, a cut by
LeaseKind = Literal["deposit", "monthly_rent"]  # 보증금, 월차임: what a lease's increase raises
LeaseEvent = Literal["contract", "increase", "move_in"]  # 계약·갱신, 직전 인상, 입주


class StatedAmount(Frozen):
    """One amount as written, with the role its words give it and the change it makes."""

    manwon: int
    role: AmountRole
    change: AmountChange | None = Field(
        default=None, description="to: the new figure (3억 5천으로); by: raised by; cut: lowered by"
    )
    base: int | None = Field(
        default=None,
        description="the amount it changes, 만원, when one was written before it (3억인데 4천 올려)",
    )


class TimeSince(Frozen):
    """The time since a lease event as the person said it (경과 기간): '재계약한 지 6개월'."""

    event: LeaseEvent
    months: float = Field(ge=0)
    under: bool = Field(default=False, description="less than that: '1년이 안 됐'")
    text: str = Field(description="as written: 재계약한지 6개월")


class QueryEntities(Frozen):
    gu: list[str] = Field(
        default=[], description="Seoul districts (구), full names: 강남구; a named 동 adds its 구"
    )
    dong: list[str] = Field(default=[], description="legal dongs (법정동), full names: 역삼동")
    stations: list[str] = Field(default=[], description="subway stations, always with 역: 강남역")
    property_types: list[PropertyType] = Field(default=[], description="kinds of property asked about")
    deal_type: DealType | None = Field(default=None, description="the first deal kind named")
    price_min_manwon: int | None = Field(
        default=None, description="lowest price (매매) or deposit (전세/보증금) asked, 만원; inclusive"
    )
    price_max_manwon: int | None = Field(
        default=None, description="highest price or deposit asked, 만원, inclusive (8억 미만 = 79999)"
    )
    monthly_rent_min_manwon: int | None = Field(default=None, description="lowest monthly rent (월세), 만원")
    monthly_rent_max_manwon: int | None = Field(default=None, description="highest monthly rent, 만원")
    size_min_m2: float | None = Field(default=None, description="supply area band, lower end, m² (inclusive)")
    size_max_m2: float | None = Field(
        default=None, description="supply area band, upper end, m² (exclusive: 30평대 stops below 40평)"
    )
    size_text: str | None = Field(
        default=None, description="the size as the person wrote it: 30평대, 전용 59"
    )
    amounts_manwon: list[int] = Field(
        default=[], description="every money amount in the order written: 3억을 3억 5천으로 -> [30000, 35000]"
    )
    # Amounts by the role the person gave them ("매매 4억에 전세 3억6천", "보증금 1000에 월세 50"). A figure
    # the person gave outranks any figure from the data, so every team reads these before the listings.
    deposit_manwon: int | None = Field(
        default=None, description="the lease deposit as it stands (전세금, 보증금), 만원"
    )
    monthly_rent_manwon: int | None = Field(
        default=None, description="the monthly rent as it stands (월세), 만원"
    )
    requested_deposit_manwon: int | None = Field(
        default=None,
        description="the deposit after a requested change (3억인데 4천 올려 -> 34000)",
    )
    requested_monthly_rent_manwon: int | None = Field(
        default=None, description="the monthly rent after a requested change (월세 50을 60으로 -> 60), 만원"
    )
    sale_price_manwon: int | None = Field(
        default=None, description="the home's sale price or value as given (매매가, 집값, 시세), 만원"
    )
    loan_manwon: int | None = Field(
        default=None, description="a loan amount asked about or held (대출), 만원"
    )
    senior_debt_manwon: int | None = Field(
        default=None, description="debt secured ahead of the tenant (근저당, 선순위 채권), 만원"
    )
    income_manwon: int | None = Field(default=None, description="annual income (연봉, 연소득), 만원")
    # The person's household as they say it (services/housing/household.py): facts like their figures,
    # kept for later turns and read by the loan and tax rules.
    house_count: int | None = Field(
        default=None, description="homes the household owns now: 무주택 -> 0, 1주택자 -> 1, 두 채째 사면 -> 1"
    )
    age: int | None = Field(default=None, description="the person's age in years, as said: 만 29살 -> 29")
    marriage_years: int | None = Field(
        default=None, description="years since the wedding: 결혼 3년차 -> 3, '결혼한 지 2년' -> 2"
    )
    children: int | None = Field(default=None, description="how many children: 자녀 2명 -> 2, 무자녀 -> 0")
    percent: float | None = Field(default=None, description="the first percentage written: 5% -> 5.0")
    dates: list[str] = Field(default=[], description="full dates written, ISO: 2025년 3월 1일 -> 2025-03-01")
    term_months: int | None = Field(default=None, description="a lease or loan term: 2년 -> 24")
    complexes: list[str] = Field(
        default=[], description="complexes named, as listed (spacing aside), in the order written: 헬리오시티"
    )
    regions: list[str] = Field(
        default=[],
        description="places outside Seoul the rule books name (시·도, the cities of 경기·인천: 수원, 부산): "
        "where a home lies sets its 최우선변제 tier and its LTV, and the listings cover none of them",
    )
    complexes_unknown: list[str] = Field(
        default=[],
        description="names written as a complex's ('은마아파트') that the listings do not hold: the answer "
        "says so rather than answering for the district as if about them",
    )
    # Conditions on complexes (services/housing/constraints.py); bounds inclusive.
    households_min: int | None = Field(
        default=None, description="fewest households (세대수): 1,500세대 넘는 -> 1501"
    )
    households_max: int | None = Field(default=None, description="most households: 300세대 미만 -> 299")
    completion_year_min: int | None = Field(
        default=None,
        description="earliest completion (준공) year: 2018년 이후 -> 2018; an age counts from the turn",
    )
    completion_year_max: int | None = Field(
        default=None, description="latest completion year: 2000년 전에 -> 1999"
    )
    walk_max_min: int | None = Field(
        default=None, description="longest walk to a station, minutes: 도보 7분 안쪽 -> 7"
    )
    conditions_said: list[str] = Field(
        default=[], description="each condition above as read, for the answer: '세대수 1,500세대 초과'"
    )
    ranked_by: Ranking | None = Field(
        default=None,
        description="the superlative asked, which orders what is found: 제일 싼 -> cheapest, 제일 비싼 -> "
        "priciest, 역에서 제일 가까운 -> nearest, 세대수 제일 많은 -> largest, 제일 새 -> newest",
    )
    conditions_not_in_data: list[str] = Field(
        default=[], description="conditions named that the listings cannot check: 주차, 반려동물, 향"
    )
    # What the turn says of the person's situation and asks of it (services/housing/reading.py): read
    # once here, so the team that answers reads the field, not the words.
    debt_spoken_of: bool = Field(
        default=False,
        description="the turn speaks of a debt on the home (근저당, 선순위, 대출, 융자): a second amount "
        "beside the deposit, with no role of its own, is that debt",
    )
    no_debt_said: bool = Field(default=False, description="the person says the home has none: 근저당 없어요")
    guarantee_asked: bool = Field(
        default=False, description="the turn asks about insuring the deposit: 전세보증금반환보증, HUG, SGI"
    )
    dsr_percent: float | None = Field(
        default=None,
        description="a DSR ratio the person names, percent: DSR 40% -> 40.0 (outranks the rules')",
    )
    loan_limit_asked: bool = Field(
        default=False, description="the turn asks how much may be borrowed: 한도, 얼마까지 대출, 최대"
    )
    # A lease's change as asked (services/housing/reading.py over amounts.py and elapsed.py).
    amounts: list[StatedAmount] = Field(
        default=[], description="each amount of amounts_manwon with its role and the change it makes"
    )
    monthly_rent_spoken_of: bool = Field(
        default=False,
        description="the turn speaks of a monthly rent (월세, 차임): a small bare amount is one",
    )
    conversion_asked: bool = Field(
        default=False, description="the turn turns deposit into monthly rent (전월세 전환, 월세로 돌리면)"
    )
    raise_asked: bool = Field(default=False, description="the turn speaks of raising (올려, 인상, 증액)")
    raise_percent: float | None = Field(
        default=None,
        description="the percent a raise asks ('10% 올려달래요' -> 10.0), not the cap asked of ('5% 넘나요')",
    )
    raise_percent_of: LeaseKind | None = Field(
        default=None, description="what that percent raises, by the last lease word before it"
    )
    lease_kinds_named: list[LeaseKind] = Field(
        default=[],
        description="the lease figures the turn names: 보증금·전세금 -> deposit, 월세·차임 -> monthly_rent",
    )
    # What a search is asked for beside the market (services/housing/reading.py).
    listings_asked: bool = Field(
        default=False, description="the turn asks whether listings are there: 있어요?, 찾아줘, 구해요"
    )
    market_level_asked: bool = Field(
        default=False, description="the turn asks the market's level: 시세, 평균, 얼마, 수준, 동향"
    )
    count_asked: bool = Field(default=False, description="the turn asks how many: 몇 개, 몇 곳, 단지 수")
    rankings_asked: list[Ranking] = Field(
        default=[], description="every superlative asked: 제일 싼 거랑 제일 비싼 거 -> cheapest, priciest"
    )
    since_last: TimeSince | None = Field(
        default=None,
        description="the time since the contract or the last increase as said (a move when neither is)",
    )
