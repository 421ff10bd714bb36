"""Words that settle what a request is about, by topic, read alike by every service that must decide it:
the planner choosing a step and a team doing it must never disagree on whether a contract is a 매매, or
whether the brokerage fee is asked. A service adds words of its own only for a meaning of its own."""

from __future__ import annotations

import re

from contracts.entities import PropertyType

# A sale (매매, 분양권) rather than a lease; a question naming both is about a lease ("매매가 5억 집에
# 전세 계약서": the price describes the home).
SALE_WORDS = re.compile(r"매매|매도인|매수인|분양권")
LEASE_WORDS = re.compile(r"임대차|전세|월세|임대|임차|집주인|세입자")


# The kinds of home as people name them: which kinds a question asks for (entities), and a kind named
# argues for a market question (the planner) and for the listing search (the search team). "주택" counts
# only as a word of its own: 주택임대차보호법 and 주택담보대출 are not houses.
PROPERTY_KIND_WORDS: tuple[tuple[PropertyType, str], ...] = (
    (PropertyType.APARTMENT, r"아파트|아파트먼트|apt|apartment"),
    (PropertyType.OFFICETEL, r"오피스텔|officetel"),
    (PropertyType.VILLA, r"빌라|다세대|연립|villa"),
    (PropertyType.ONEROOM, r"원룸|투룸|쓰리룸|원투룸|오픈형 원룸|one ?room|studio"),
    (PropertyType.HOUSE, r"(?:단독|다가구|전원)\s*주택|(?<![가-힣])주택(?=$|[\s,.?!]|[을를이가은는에의도])"),
    (PropertyType.COMMERCIAL, r"상가|사무실|점포|오피스(?!텔)|공장|지식산업센터"),
)
HOME_KIND_WORDS = "|".join(words for _, words in PROPERTY_KIND_WORDS)


# A tenant's rights under the lease law named (갱신, 대항력, 우선변제): a legal question (the planner) and
# its search (the search team).
TENANT_RIGHTS_WORDS = r"갱신|계약\s*연장|묵시적|대항력|확정\s*일자|전입\s*신고|우선\s*변제|최우선"
# A question of rules (요건, 자격, 의무, 과태료): the planner weighs a statute heading matched by such a
# clause more, and the search team's legal search is called by the words.
RULE_ASK_WORDS = (
    r"요건|자격|절차|의무|권리|기준|정의|사유|벌칙|과태료|처벌|제한|면제|금지|신고|등록|허가|승인|이의\s*신청"
    r"|권한|책임"
)
# A duty asked ("돌려줘야 하나요", "신고해야 돼요", "나와 있어야 하나요"), the state's doing ("구청에서
# 확인하나요", "나라에서 조사하나요") or how a figure is set: a question of what rules require.
DUTY_ASKED_WORDS = (
    r"(?:어|아|여|해|워|줘|둬|려|러|와|져)\s*야\s*(?:하나|하는|할까|합니|해요|되나|되는|돼요|돼|됩니)"
    r"|(?:구청|시청|군청|지자체|지방\s*자치\s*단체|나라|정부|국토부|국토\s*교통부|관청)\S{0,3}\s*"
    r"(?:\S+\s*){0,5}(?:확인|조사|정하|정해|관리|감독|허가|승인|알려|신고)"
    # how a figure is set by rule ("가격은 어떻게 정하나요", "세금 매길 때 어떻게 쓰이나요")
    r"|어떻게\s*(?:정하|정해|산정|매기|쓰이)"
)
# The terms of a contract named (계약서, 특약, 조항): their review (the planner's task, the analysis tool).
CONTRACT_TERMS_WORDS = r"계약서|특약|조항"


# A change of the rent or the deposit asked (증액·감액): the planner's rent-change topic and the analysis
# team's rent check. "올라" is no raise asked (집값 올라요: prices rise), and 확인하 is no 인하.
RENT_RAISE_WORDS = r"인상|증액|올[려리린릴]"
RENT_CUT_WORDS = r"(?<!확)인하|감액|깎"
# The statute's rate of converting a deposit into rent (전월세 전환율), asked by name: computed whenever
# it is named ("전환율이 몇 %예요?", "월세 전환 시 이자율 제한").
CONVERSION_RATE_WORDS = r"전환\s*율|전환.{0,12}(?:이자율|이율|비율|금리|상한|제한)"


# A deposit at risk (깡통전세, 전세가율, 떼일까): the planner's risk topic, the analysis team's jeonse risk.
DEPOSIT_AT_RISK_WORDS = r"깡통|위험|리스크|risk|떼일|떼이|전세가율|역전세|안전(?:한|할|성|하게|장치)?"
# Insuring the deposit's return (전세보증금반환보증: HUG, SGI, HF): asked, it is the law's and the risk's.
DEPOSIT_GUARANTEE_WORDS = r"반환\s*보증|보증\s*보험|HUG|SGI|HF|보증\s*가입"


# A debt secured on the home, ahead of the tenant (근저당, 선순위 채권, 융자): the jeonse risk reckons it
# against the deposit, and a contract written for a home that has one gains the 특약 that clears it.
HOME_DEBT_WORDS = r"근저당|선순위|채권\s*최고액|융자|담보\s*대출"


# A return on a home bought (수익률, 시세차익): the planner's investment topic and the analysis team's ROI.
INVEST_WORDS = r"투자|수익률|수익성|시세\s*차익|임대\s*수익|ROI|IRR"
# A housing-support programme or those it is for (청년, 신혼부부, 생애최초, 특례): the planner's policy topic
# and the analysis team's policy matching.
HOUSING_SUPPORT_WORDS = r"청년|신혼|신생아|생애\s*최초|특례|정책|지원|혜택|감면|청약"


# The market's price level asked (시세, 실거래, 동향): the planner's market topic and the market search.
MARKET_PRICE_WORDS = r"시세|집값|매매가|전셋값|전세가(?!율)|월세가|실거래|호가|동향|추이|평당"


# The lending ratios (LTV, DTI, DSR): named as written in a loan task, a loan named, never a rent's rate.
LOAN_RATIOS = r"LTV|DTI|DSR"
# A loan named (대출, 주담대, the programmes, the ratios): the planner's loan rules and the loan search.
LOAN_NAMED_WORDS = rf"대출|주담대|디딤돌|보금자리|버팀목|{LOAN_RATIOS}"
# Who may have a loan or a programme (자격, 조건, 대상): the loan task's aspect, the loan search's answer.
ELIGIBILITY_WORDS = r"자격|조건|대상"
# How much may be borrowed, asked (한도, "얼마나 받을 수 있어요", "대출 가능"): the planner plans the loan
# simulation for it and the simulator answers with the limit rather than a loan given.
LOAN_LIMIT_ASKED = re.compile(
    rf"한도|{LOAN_RATIOS}|최대|얼마(?:나|까지)?\s*(?:빌|대출|받)|얼마(?:나|까지)|받을\s*수|나오|가능",
    re.IGNORECASE,
)


# What a loan is for, as people say it: a home bought (주담대, 디딤돌, 보금자리론, LTV) or a 전세 deposit
# borrowed (버팀목, 보증금); read alike by the loan search and the loan application.
JEONSE_LOAN_WORDS = re.compile(r"전세|전월세|월세|보증금|버팀목")
PURCHASE_LOAN_WORDS = re.compile(
    r"매매|구입|구매|매수|사려|집\s*사|살\s*(?:집|예정)|주담대|주택\s*담보|디딤돌|보금자리|LTV|DSR",
    re.IGNORECASE,
)


def speaks_only_of_a_sale(text: str) -> bool:
    return bool(SALE_WORDS.search(text)) and not LEASE_WORDS.search(text)


# How people name the brokerage fee (중개보수): 복비, 중개비, 중개수수료, 부동산 수수료, "부동산에 얼마 줘야".
_BROKER = r"(?:부동산|중개사(?:무소)?|복덕방)"
BROKERAGE_FEE_WORDS = re.compile(
    rf"중개\s*(?:보수|수수료|비)|복비|{_BROKER}\s*(?:수수료|보수|비용)"
    # "부동산에 얼마 줘야", "중개사한테 돈 얼마 내요": paying the broker is asking its fee.
    rf"|{_BROKER}\s*(?:에|에게|에다|한테|쪽에)\s*(?:돈\s*)?얼마.{{0,8}}(?:줘|주|내|드려|드리|나가)"
)


# A tenant asking what they get back when the home goes to auction ("집이 경매 넘어가면 최소 얼마는 받아요?",
# "경매 들어가도 먼저 받을 수 있어요?"): the law's 최우선변제 and 우선변제, in everyday words.
AUCTION_CLAIM = re.compile(
    r"(?:경매|공매)\S{0,2}\s*(?:넘어|들어|진행|붙|나오|당하|처분|돼|되|된).{0,30}"
    r"(?:얼마|먼저|돌려\s*받|받을\s*수|받아요|받나요|받을까|받는|건질|보호)"
)


# The figures the law sets that a question asks for by name, read alike by the planner (which plans their
# computation) and the analysis team (which picks the tool that computes them).
PRIORITY_REPAYMENT_WORDS = re.compile(rf"최우선|소액\s*임차|소액\s*보증금|{AUCTION_CLAIM.pattern}")
ACQUISITION_TAX_WORDS = re.compile(r"취득세")


# A price the person has judged against the market ("이거 시세보다 비싼 편인가요?", "바가지 아닌가요",
# "적당한 가격이에요?"): their figures are what is judged, never bounds of a search; the analysis team's
# market analysis judges them.
JUDGED_WORDS = (
    r"시세\s*(?:보다|에\s*비해|대비)|평균\s*(?:보다|에\s*비해)|(?:비싼|싼|저렴한|센|높은|낮은)\s*편"
    r"|바가지|적당한|적당해|적정한|적정해|괜찮은\s*가격|제값|비싸게|싸게\s*(?:구한|얻은|계약)"
)
JUDGED = re.compile(JUDGED_WORDS)


# Whether a message asks anything: a question mark, a question's or a request's ending, a question word,
# or a demand it reports ("올려달래요", "나가래요" ask whether they may). A message with none of these
# only tells ("지금 전세 2억에 살아요", "연봉 4천이에요").
ASKING = re.compile(
    r"[?？]|까|나요|가요|는지|던데|어때|어떤|어떻|어디|언제|왜|얼마|몇|뭐|뭔|무엇|무슨|누가|누구"
    r"|알려|가르쳐|주세요|줘|주실|주시|봐요|볼래|될까|되나|돼나|되는|돼도|해도|하면|되면|인가|인지"
    r"|가능|괜찮|맞나|맞아|맞는|할\s*수|싶|원해|찾|구해|구하|보여|비교|계산|작성|써|만들|검토|추천|확인"
    r"|알아보|알아봐|살펴|둘러|보러"  # "관악구 전세 알아보고 있어요": looking is asking
    r"|올려\s*달|올린대|올리겠|달래|달라|하재|하자|나가라|나가래|빼래|래요|재요|대요|라는데|라고"
)


# A sentence that ends, as a statement does ("살아요", "이에요", "있습니다"): a search written as words
# ("강남구 아파트 전세 5억") is no statement and asks for what it names.
_STATEMENT_END = re.compile(r"(?:요|다|죠|음)\s*[.!~]*\s*$")
# Someone else's doing, or a trouble, reported ("집주인이 세금 체납했어요"): the report asks what to do.
_REPORTED = re.compile(r"집\s*주인|임대인|주인|중개|부동산|은행|경매|압류|체납|사기|문제|고장|누수|통보|연락")
ONLY_TELLS_CHARS = 60  # longer messages tell a story, and a story asks something


def only_tells(text: str) -> bool:
    """Whether a message only tells the person's situation ("지금 전세 2억에 살아요", "연봉 4천이에요"):
    a short statement that asks nothing and reports nobody else's doing."""
    text = text.strip()
    return (
        len(text) <= ONLY_TELLS_CHARS
        and _STATEMENT_END.search(text) is not None
        and ASKING.search(text) is None
        and _REPORTED.search(text) is None
    )


# A sum of what one pays asked ("관리비 포함 한 달 얼마", "1년이면 얼마 나가요", "2년 동안 총 얼마"): the
# person's own monthly outgoings added up, not a price of the market.
OUTLAY_ASKED = re.compile(
    r"(?:한\s*달|매달|매월|달마다|1\s*년|일\s*년|한\s*해|\d+\s*년|\d+\s*개월|계약\s*기간)\S{0,4}\s*"
    r"(?:총|전부|다\s*해서|합쳐서|합치면|모두)?\s*(?:얼마|몇)"
    r"|(?:총|전부\s*다|다\s*합(?:쳐|치)\S*|합계|합쳐서)\s*(?:얼마|몇)|관리비\s*(?:포함|까지|합쳐|더하)"
)


# What the listings record of a complex, asked of one named or pointed at ("래미안퍼스티지 세대수
# 몇이에요?", "거기 몇 년에 지어졌어요?", "그 단지 역까지 몇 분?"): a market question, though 세대수 is a
# statute word too.
COMPLEX_FACTS_ASKED = re.compile(
    r"세대\s*수|몇\s*세대|준공|지어진|지어졌|몇\s*년\s*(?:도|차|에\s*지)|연식|입주\s*(?:년|연도)"
    r"|(?:역|지하철)\S{0,3}\s*(?:까지|에서|가깝|멀|몇)|도보|걸어서|몇\s*분|용적률|몇\s*동|몇\s*평|평형|면적"
)
# Words that point at what was named a turn before ("거기", "그 단지", "그 아파트는요").
POINTS_BACK = re.compile(r"^\s*(?:거기|그곳|그\s*(?:단지|아파트|오피스텔|곳|동네|집))")
