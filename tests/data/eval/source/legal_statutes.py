"""Writes legal_statutes_dev.jsonl and the held-out batches: questions written from sampled articles.

How the articles were drawn: every article of the corpus in force (no 부칙, deleted, fragment or future
version), not already labelled by legal_dev_articles.jsonl or legal_ours.jsonl, at least 120 characters, and
not about what no member of the public asks (forms, staff, data handling, delegation, committee internals:
SKIP_TITLE); then random.Random(3535) drew 6 per instrument of the six laws people ask most about
(주택임대차보호법, 공인중개사법, 주택법, 민간임대주택법, 부동산 거래신고법, 공동주택관리법) and 3 per other
instrument. Each drawn article got one question in a person's words (not the statute's), or none when no
person would ask about it (SKIPPED). The batches alternate along the drawn order (by instrument), so both
cover every law: even positions develop, odd ones are held out. The labels: `gold_articles` is the drawn
article; `acceptable_articles` are the articles the drawn one delegates to or is delegated from (the
decree article that "법 제N조" names, and the reverse), which lead to the same answer; `law_titles` is the
law's family. GENERAL_RULES are dev questions added by hand for issue 35 (a clause against the tenant,
the law's definitions), written before the change that answers them.

legal_statutes_heldout2.jsonl (issue 35, item 1) is a second held-out batch, since the first had been measured
too often to be held out: the same rules of drawing, random.Random(4242), 2 per instrument of every law, none
already labelled or drawn by the first draw (drawn2); each kept article got one question in a person's
words, written without the statute's terms (QUESTIONS2, SKIPPED2), before any change it was to measure.
Only its score is read, not its misses.

`python tests/data/eval/source/legal_statutes.py` rewrites the three files from this one.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
CORPUS = ROOT / "infra" / "seed" / "legal" / "corpus.jsonl"
LABELLED = (HERE.parent / "legal_dev_articles.jsonl", HERE.parent / "legal_ours.jsonl")
SKIP_TITLE = re.compile(
    r"서식|고유식별|민감정보|위임|위탁|재검토|사무국|운영|수수료|제출서류|보고서|규제|공시위원회|심의위원회"
    r"|벌칙 적용|청문|세부|도면|대장|전산|보존|관할|통지서"
)
MOST_ASKED = (
    "주택임대차보호법",
    "공인중개사법",
    "주택법",
    "민간임대주택",
    "부동산 거래신고",
    "공동주택관리법",
)

QUESTIONS = {
    "건축물의_분양에_관한_법률/제2조": "건물을 여러 사람에게 나눠 파는 건 법에서 어떤 경우를 말하나요? 한 사람한테 통째로 파는 것도 해당되나요?",
    "건축물의_분양에_관한_법률/제9조의2": "오피스텔 분양 신고 건으로 국토부가 구청에 자료를 내라고 요구할 수 있나요?",
    "건축물의_분양에_관한_법률/제6조의3": "투기과열지구에서 오피스텔을 분양받았는데 입주하기 전에 되팔 수 있나요?",
    "건축물의_분양에_관한_법률_시행규칙/제6조": "상가 분양 광고에 돈 내는 시기나 청약금 돌려받는 시기도 꼭 나와 있어야 하나요?",
    "건축물의_분양에_관한_법률_시행규칙/제3조": "오피스텔을 분양할 때 보증은 어디서 받아야 하나요? 주택도시보증공사 말고 다른 데도 되나요?",
    "건축물의_분양에_관한_법률_시행규칙/제7조": "생활숙박시설을 분양받을 때 계약서에 따로 붙이는 확인서가 있다던데 그게 뭔가요?",
    "건축물의_분양에_관한_법률_시행령/제5조": "분양하는 회사 대신 책임질 건설사를 세울 수 있다던데, 그 건설사는 아무 회사나 되나요?",
    "건축물의_분양에_관한_법률_시행령/제9조의3": "오피스텔은 몇 실 이상이어야 되팔기가 막히고, 그 기간은 언제까지인가요?",
    "건축물의_분양에_관한_법률_시행령/제10조": "분양받은 상가 건물 설계가 바뀌어서 전용면적이 줄었는데, 이런 변경은 분양받은 사람 동의가 필요한가요?",
    "공동주택_분양가격의_산정_등에_관한_규칙/제5조": "새 아파트 바닥재나 주방가구를 제가 직접 하겠다고 하면 동 배정에서 불리해지나요?",
    "공동주택_분양가격의_산정_등에_관한_규칙/제4조": "아파트 분양가에 발코니 확장이나 천장 에어컨은 안 들어가고 따로 고르는 건가요?",
    "공동주택_분양가격의_산정_등에_관한_규칙/제2조": "주상복합 건물에 들어가는 아파트도 분양가 계산 규칙이 똑같이 적용되나요?",
    "공동주택관리법/제94조": "관리사무소가 법을 어기고 공사를 하면 구청이 공사를 멈추게 할 수 있나요?",
    "공동주택관리법/제101조": "아파트 관리업체 직원이 법을 어겨 벌금을 받게 되면 그 회사도 같이 벌금을 내나요?",
    "공동주택관리법/제9조": "아파트 공용 부분을 고치고 관리하는 일은 누가 조직을 꾸려서 해야 하나요?",
    "공동주택관리법/제44조의2": "아파트 하자 다툼을 위원회가 재판처럼 판단해 주는 절차도 있나요? 거기서 제 의견을 말할 수 있나요?",
    "공동주택관리법/제31조": "우리 아파트 설계 도면은 관리사무소가 보관하고 있어야 하는 건가요?",
    "공동주택관리법/제25조": "관리비로 청소업체나 경비업체를 고를 때 입찰 같은 방식을 꼭 거쳐야 하나요?",
    "공동주택관리법_시행규칙/제6조의3": "구청이 우리 아파트 관리비를 점검한다는데 구체적으로 뭘 살펴보나요?",
    "공동주택관리법_시행규칙/제3조": "아파트를 위탁관리에서 자치관리로 바꾸면 구청에 알릴 때 뭘 같이 내야 하나요?",
    "공동주택관리법_시행규칙/제12조": "아파트 경비반장은 방범 교육을 1년에 몇 번, 몇 시간씩 받아야 하나요?",
    "공동주택관리법_시행령/제41조": "새 아파트를 지은 회사가 하자 고칠 돈을 어디에 어떻게 맡겨둬야 하나요?",
    "공동주택관리법_시행령/제84조": "아파트 분쟁조정위원회가 내놓는 조정안에는 어떤 내용이 적혀 있어야 하나요?",
    "공동주택관리법_시행령/제57조": "하자인지 아닌지 판정을 받으면 그 결과 문서에 언제까지 고쳐야 하는지도 나오나요?",
    "공동주택관리법_시행령/제27조": "아파트 관리사무소는 한 해가 끝나고 언제까지 회계감사를 받아야 하나요?",
    "공동주택관리법_시행령/제54조": "하자 조정 신청을 해 놨는데 상대방이 법원에 소송을 걸면 조정은 어떻게 되나요?",
    "공동주택관리법_시행령/제29조의3": "입주민 대표가 뽑히기 전에 단지 안 어린이집 임대 계약을 건설사가 맺어도 되나요?",
    "공인중개사법/제40조": "중개사가 영업정지를 받기 전에 폐업했다가 다시 문을 열면 그 처분을 피할 수 있나요?",
    "공인중개사법/제16조": "부동산 중개사가 계약서에 찍는 도장은 아무 도장이나 써도 되나요?",
    "공인중개사법/제17조": "부동산 사무실에 등록증이나 수수료 표를 꼭 걸어놔야 하나요?",
    "공인중개사법/제34조의2": "중개사가 거래 사고 예방 교육을 받으면 나라에서 교육비를 지원해 주나요?",
    "공인중개사법/제11조": "부동산 사무소를 열겠다고 등록하면 증서를 따로 받나요? 잃어버리면 다시 받을 수 있나요?",
    "공인중개사법_시행규칙/제28조": "등록 안 한 가짜 중개업자를 신고했는데 포상금은 언제쯤 받을 수 있나요?",
    "공인중개사법_시행규칙/제3조": "공인중개사 시험에 붙으면 자격증은 언제까지 받을 수 있나요?",
    "공인중개사법_시행규칙/제10조": "부동산 사무실 벽에 붙어 있어야 하는 게 뭐뭐예요? 등록증은 복사본이어도 되나요?",
    "공인중개사법_시행규칙/제27조의2": "중개사 연수 교육을 하는 기관은 강사를 어떤 사람으로 둬야 하나요?",
    "공인중개사법_시행규칙/제15조": "부동산 매물 정보망을 운영하려면 어디에 지정 신청을 해야 하나요?",
    "공인중개사법_시행령/제31조": "공인중개사 협회는 무슨 일을 하는 곳인가요?",
    "공인중개사법_시행령/제28조의2": "중개사 교육 지원금은 강사비나 교재 만드는 데도 쓸 수 있나요?",
    "공인중개사법_시행령/제9조": "공인중개사 시험 문제는 누가 내고 채점하나요?",
    "공인중개사법_시행령/제15조": "중개법인이 같은 구에 지점을 두 개 낼 수 있나요?",
    "공인중개사법_시행령/제10조": "공인중개사 시험은 몇 점을 넘어야 붙나요?",
    "공인중개사법_시행령/제33조": "중개사 협회 공제는 어떤 사고에 대비해서 돈을 모으는 건가요?",
    "공인중개사의_매수신청대리인_등록_등에_관한_규칙/제1조": "경매 입찰을 대신 해주는 중개사 등록 규칙은 무엇을 정하려고 만든 건가요?",
    "공인중개사의_매수신청대리인_등록_등에_관한_규칙/제13조": "경매 대리를 하는 중개사는 손해배상 보증을 얼마나 들어야 하나요?",
    "민간임대주택에_관한_특별법/제39조의2": "임대주택 단지를 만드는 공사가 끝나면 누구한테 검사를 받아야 하나요?",
    "민간임대주택에_관한_특별법/제27조": "임대주택 촉진지구로 지정된 뒤 사업이 진행되지 않으면 지정이 풀릴 수도 있나요?",
    "민간임대주택에_관한_특별법/제12조": "임대관리 회사는 관리하는 집 수나 자본금을 얼마나 자주 구청에 알려야 하나요?",
    "민간임대주택에_관한_특별법/제57조": "임대주택 분쟁조정에서 양쪽이 조정안을 받아들이면 합의한 것과 같은 효력이 있나요?",
    "민간임대주택에_관한_특별법/제33조": "작은 규모의 임대주택 촉진지구는 지정 신청할 때 사업 승인까지 한꺼번에 받을 수 있나요?",
    "민간임대주택에_관한_특별법_시행규칙/제4조의2": "민간임대 협동조합 조합원을 모으려면 구청에 뭘 내고 신고해야 하나요?",
    "민간임대주택에_관한_특별법_시행규칙/제2조": "집 몇 채를 세 놓으려고 임대사업자로 등록하려는데 어디에 뭘 내면 되나요?",
    "민간임대주택에_관한_특별법_시행규칙/제28조": "임대사업자가 의무를 어기면 기금 대출 이자를 더 물게 된다던데 맞나요?",
    "민간임대주택에_관한_특별법_시행규칙/제4조의3": "민간임대 협동조합이 조합원을 모을 때 모집 공고는 어디에 내야 하나요?",
    "민간임대주택에_관한_특별법_시행규칙/제25조": "임대아파트 수선 적립금이 얼마나 쌓였는지는 구청이 언제 위에 보고하나요?",
    "민간임대주택에_관한_특별법_시행령/제39조": "임대사업자가 드는 보증금 보증은 보증 금액을 어떻게 계산하나요?",
    "민간임대주택에_관한_특별법_시행령/제15조": "임대주택을 짓는다고 땅을 받아놓고 2년 동안 공사를 안 하면 땅을 돌려줘야 하나요?",
    "민간임대주택에_관한_특별법_시행령/제33조의2": "민간임대 아파트 세입자를 모집하려면 며칠 전까지 구청에 신고해야 하나요?",
    "민간임대주택에_관한_특별법_시행령/제17조의2": "용적률 혜택을 받고 짓는 임대주택은 몇 세대 이상일 때 시도에 넘겨야 하나요?",
    "부동산_가격공시에_관한_법률/제8조": "나라나 지자체가 땅값을 매길 때 근처 공시지가를 기준으로 하나요?",
    "부동산_가격공시에_관한_법률/제27조": "공시가격 정보를 한곳에 모아 관리하는 시스템이 있나요?",
    "부동산_가격공시에_관한_법률/제19조": "우리 집 공시가격은 세금 매길 때 어떻게 쓰이나요?",
    "부동산_가격공시에_관한_법률_시행규칙/제32조": "공시가격이 시세의 몇 퍼센트쯤인지 같은 자료도 공개되나요?",
    "부동산_가격공시에_관한_법률_시행규칙/제9조": "공시가격 조사한다고 찾아온 사람이 진짜인지 뭘 보고 알 수 있나요?",
    "부동산_가격공시에_관한_법률_시행령/제30조": "기준이 되는 단독주택 가격은 누가 조사해서 누구한테 보고하나요?",
    "부동산_가격공시에_관한_법률_시행령/제65조": "상가 건물 가격을 국세청이 따로 정해서 발표하는 경우도 있나요?",
    "부동산_거래신고_등에_관한_법률/제19조": "땅값이 어떻게 움직이는지 나라에서 따로 조사하나요?",
    "부동산_거래신고_등에_관한_법률/제25조의2": "집값을 속여서 신고한 사람을 제보하면 포상금을 받을 수 있나요?",
    "부동산_거래신고_등에_관한_법률/제24조": "집 거래 정보나 전월세 계약 정보를 정부가 모아서 관리하나요?",
    "부동산_거래신고_등에_관한_법률/제27조": "부동산 회사 직원이 거래 신고를 거짓으로 하다 걸리면 회사도 처벌받나요?",
    "부동산_거래신고_등에_관한_법률/제5조": "집을 팔고 신고한 금액이 시세와 너무 다르면 구청에서 확인하나요?",
    "부동산_거래신고_등에_관한_법률/제21조": "허가받아야 하는 구역에서 허가 없이 땅 계약을 하면 어떤 처분을 받나요?",
    "부동산_거래신고_등에_관한_법률_시행규칙/제20조의2": "거짓 신고를 두 사람이 같이 제보하면 포상금은 어떻게 나누나요?",
    "부동산_거래신고_등에_관한_법률_시행규칙/제6조의5": "전월세 계약 신고를 다른 사람한테 맡겨서 대신 내도 되나요?",
    "부동산_거래신고_등에_관한_법률_시행규칙/제20조": "지자체는 땅 거래 상황을 얼마나 자주 조사하나요?",
    "부동산_거래신고_등에_관한_법률_시행규칙/제6조의2": "전월세 계약을 신고할 때 어떤 내용을 적어야 하나요?",
    "부동산_거래신고_등에_관한_법률_시행규칙/제9조": "허가구역 땅을 사려고 신청할 때 땅을 어떻게 쓸지 계획서도 내야 하나요?",
    "부동산_거래신고_등에_관한_법률_시행규칙/제13조": "허가구역에서 농사를 지으려고 땅을 사려면 어떤 조건을 갖춰야 하나요?",
    "부동산_거래신고_등에_관한_법률_시행령/제19조의3": "거래가격을 속인 사람을 제보하려면 증거를 같이 내야 하나요?",
    "부동산_거래신고_등에_관한_법률_시행령/제6조#2": "외국인이 군사시설 근처 땅을 사려면 허가를 받아야 하나요?",
    "부동산_거래신고_등에_관한_법률_시행령/제13조": "땅 거래 허가가 안 나서 시에 땅을 사달라고 할 때 청구서에 뭘 적나요?",
    "부동산_거래신고_등에_관한_법률_시행령/제11조": "LH 같은 공공기관이 허가구역 땅을 살 때도 일반인처럼 허가를 받아야 하나요?",
    "부동산_거래신고_등에_관한_법률_시행령/제12조": "허가 신청한 땅을 공공기관이 먼저 사겠다고 하면 언제까지 조건을 알려줘야 하나요?",
    "부동산등기규칙/제157조": "땅이 수용되면서 제 등기가 지워졌다면 따로 알려주나요?",
    "부동산등기규칙/제68조": "인터넷으로 등기를 신청하려면 먼저 뭘 해야 하나요? 등기소에 한 번은 가야 하나요?",
    "부동산등기규칙/제150조": "가등기를 지우고 싶은데 가등기한 사람이 협조를 안 하면 저 혼자 신청할 수 있나요?",
    "부동산등기법/제37조": "땅 두 필지를 하나로 합치려는데 한쪽에 근저당이 잡혀 있으면 못 합치나요?",
    "부동산등기법/제87조": "신탁해 둔 집을 돌려받을 때 신탁 등기는 어떻게 지우나요?",
    "부동산등기법/제84조": "집을 맡아 관리하는 신탁 받은 사람이 여러 명이면 등기에는 어떻게 나오나요?",
    "주택법/제11조의6": "지역주택조합에 가입했는데 후회되면 낸 돈 돌려받고 빠질 수 있나요?",
    "주택법/제78조": "땅은 빌리고 건물만 분양받는 아파트는 땅을 몇 년 동안 쓸 수 있나요?",
    "주택법/제83조": "집으로 갚기로 하는 채권을 발행할 때 회사채에 관한 다른 법 규정도 적용되나요?",
    "주택법/제14조의3": "주택조합 돈 관리가 의심스러운데 조합도 회계감사를 받아야 하나요?",
    "주택법/제56조": "아파트 청약하려고 드는 통장은 어떤 통장이고 어느 은행에서 만들 수 있나요?",
    "주택법/제52조": "공장에서 만든 조립식 주택으로 인정받았는데 성능이 떨어지면 취소되나요?",
    "주택법_시행규칙/제7조": "주택조합 설립 인가를 받을 때 사업계획서에 뭘 적어야 하나요?",
    "주택법_시행규칙/제28조": "아파트 리모델링 허가를 받으려면 어떤 서류를 내야 하나요?",
    "주택법_시행규칙/제20조의3": "입주 전 사전점검에서 지적한 하자를 건설사는 어떻게 고치겠다는 계획을 내야 하나요?",
    "주택법_시행규칙/제18조": "아파트 공사 현장 감리 책임자는 어떤 자격이 있어야 하나요?",
    "주택법_시행규칙/제16조": "개발하면서 비용 충당용으로 남겨둔 땅을 팔 때 가격은 어떻게 정하나요?",
    "주택법_시행규칙/제11조의2": "주택조합 총회를 하고 나면 결과를 구청에 언제까지 알려야 하나요?",
    "주택임대차보호법/제28조": "전월세 분쟁조정을 신청하면 제 사정이 밖으로 새지는 않나요?",
    "주택임대차보호법/제23조": "전세 분쟁조정을 신청하면 결론 나기까지 얼마나 걸려요?",
    "주택임대차보호법/제8조의2": "소액 세입자가 먼저 돌려받는 금액 기준은 누가 정하나요?",
    "주택임대차보호법/제25조": "집주인과의 분쟁조정을 신청했는데 위원회가 조정을 안 해줄 수도 있나요?",
    "주택임대차보호법/제27조": "분쟁조정에서 집주인이 돈을 주기로 하고 안 주면 바로 강제집행할 수 있나요?",
    "주택임대차보호법_시행령/제28조": "보증금이 얼마 이하면 분쟁조정을 작은 조정부에서 다루나요?",
    "주택임대차보호법_시행령/제5조": "제가 들어갈 집의 기존 임대차 계약 정보를 확인할 수 있는 사람은 누구인가요?",
    "주택임대차보호법_시행령/제21조": "전월세 분쟁조정위원회는 어디에 있나요?",
    "주택임대차보호법_시행령/제16조": "소액 보증금 기준을 정하는 위원회 회의는 공개되나요?",
    "주택임대차보호법_시행령/제6조": "계약하기 전에 그 집의 확정일자나 보증금 정보를 볼 수 있나요?",
}
# Drawn, but no member of the public asks about them (form numbers, committee internals, data exchange).
SKIPPED = {
    "공동주택관리법_시행규칙/제31조",
    "공동주택관리법_시행규칙/제23조의3",
    "공동주택관리법_시행규칙/제27조",
    "공인중개사법/제39조의2",
    "공인중개사법_시행규칙/제23조",
    "공인중개사의_매수신청대리인_등록_등에_관한_규칙/제7조",
    "민간임대주택에_관한_특별법/제21조의3",
    "민간임대주택에_관한_특별법_시행규칙/제14조의2",
    "민간임대주택에_관한_특별법_시행령/제33조의4",
    "민간임대주택에_관한_특별법_시행령/제44조",
    "부동산_가격공시에_관한_법률_시행규칙/제14조",
    "부동산_가격공시에_관한_법률_시행령/제73조",
    "부동산_거래신고_등에_관한_법률_시행령/제4조의2",
    "주택임대차보호법/제19조",
    "주택임대차보호법_시행령/제14조",
}
# The second held-out batch (issue 35, item 1), written before any change it measures: drawn2's articles.
QUESTIONS2 = {
    "건축물의_분양에_관한_법률/제12조": "오피스텔 시행사가 받으면 안 되는 때에 돈을 미리 받아 챙기면 얼마나 물어내야 하나요?",
    "건축물의_분양에_관한_법률/제3조": "상가 건물을 다 짓기 전에 나눠 팔 때 몇 평 이상 건물부터 건물 분양 법을 따라야 하나요?",
    "건축물의_분양에_관한_법률_시행규칙/제8조": "분양받은 오피스텔 설계가 바뀐다며 동의해 달라는데, 말로 해도 되나요 아니면 문서로 해야 하나요?",
    "건축물의_분양에_관한_법률_시행령/제8조": "오피스텔 분양 광고에 건물이 지진에 얼마나 버티는지도 적혀 있어야 하나요?",
    "건축물의_분양에_관한_법률_시행령/제7조의2": "300실 넘는 생활숙박시설은 인터넷으로 청약을 받아야 하나요? 경쟁률은 어디서 보나요?",
    "공동주택_분양가격의_산정_등에_관한_규칙/제10조": "민간 땅에 짓는 아파트는 분양가에 들어가는 땅값을 누가 매겨서 정하나요?",
    "공동주택관리법/제65조의3": "입주민들이 관리소장을 자르라고 관리회사에 요구해도 되나요?",
    "공동주택관리법/제65조의2": "아파트 경비 아저씨한테 개인 심부름이나 업무 아닌 일을 시켜도 되나요?",
    "공동주택관리법_시행규칙/제2조": "옆 단지랑 관리사무소를 합쳐서 같이 운영하려면 주민 동의를 어떻게 받아야 하나요?",
    "공동주택관리법_시행규칙/제33조": "아파트 관리소장으로 새로 발령받으면 교육을 언제까지 받아야 하나요?",
    "공동주택관리법_시행령/제68조": "아파트 관리회사가 영업을 멈추는 대신 돈으로 내면 하루에 얼마씩인가요?",
    "공동주택관리법_시행령/제26조": "관리사무소는 내년 관리비 계획을 언제까지 동대표 회의에 올려서 허락받아야 하나요?",
    "공인중개사법/제18조의3": "부동산 앱에 올라온 가짜 매물 광고를 나라에서 감시하기도 하나요?",
    "공인중개사법/제50조": "중개보조원이 불법을 저지르면 사무실 대표 중개사도 같이 벌금을 내나요?",
    "공인중개사법_시행규칙/제5조": "중개사무소를 열겠다고 신청했는데, 등록증을 내주기 전에 구청이 뭘 확인하나요?",
    "공인중개사법_시행령/제3조": "공인중개사 시험을 국토부가 직접 출제할 때도 있나요? 그럴 땐 어떤 절차를 거치나요?",
    "공인중개사의_매수신청대리인_등록_등에_관한_규칙/제8조": "경매 대리 중개사 등록증을 잃어버렸는데 다시 받을 수 있나요?",
    "공인중개사의_매수신청대리인_등록_등에_관한_규칙/제10조": "경매 입찰을 대신 해주려는 중개사는 등록 전에 어떤 교육을 들어야 하나요?",
    "민간임대주택에_관한_특별법/제21조": "공공지원 임대주택을 지으면 건물을 더 넓고 높게 지을 수 있게 해주나요?",
    "민간임대주택에_관한_특별법/제5조의7": "임대사업자 등록이 일부 취소됐는데 바로 다른 집을 더 올릴 수 있나요?",
    "민간임대주택에_관한_특별법_시행규칙/제7조": "임대사업자가 구청에서 돈으로 내라는 처분을 받으면 며칠 안에 내야 하나요?",
    "민간임대주택에_관한_특별법_시행규칙/제21조": "임대사업자가 관리회사 안 쓰고 직접 단지를 관리하려면 뭘 내고 허락받아야 하나요?",
    "민간임대주택에_관한_특별법_시행령/제13조": "집주인 대신 세를 놓고 관리해 주는 회사가 월세를 안 주거나 보증금을 안 돌려주면 대비책이 있나요?",
    "민간임대주택에_관한_특별법_시행령/제39조의3": "보증금을 안 돌려준 임대사업자가 빚 조정을 받고 있으면 다시 보증에 들 수 있나요?",
    "부동산_가격공시에_관한_법률/제13조": "땅값 조사한다고 공무원이 우리 집 마당에 허락 없이 들어와도 되나요?",
    "부동산_가격공시에_관한_법률/제22조": "상가나 오피스 호실도 아파트처럼 정부가 매년 가격을 발표하나요?",
    "부동산_가격공시에_관한_법률_시행규칙/제5조": "우리 땅 공시지가를 증명하는 서류를 떼려면 어디에 신청하나요?",
    "부동산_가격공시에_관한_법률_시행령/제43조": "아파트 공시가격은 매년 언제 발표되고 어디서 볼 수 있나요?",
    "부동산_가격공시에_관한_법률_시행령/제6조": "기준이 되는 땅값을 매길 때 급하게 싸게 판 거래도 그대로 반영하나요?",
    "부동산_거래신고_등에_관한_법률/제11조": "허가받아야 하는 동네에서 땅을 사고팔 때 누가 허가를 받아야 하고, 작은 땅도 필요한가요?",
    "부동산_거래신고_등에_관한_법률/제6조의4": "전월세 계약 신고를 거짓으로 하면 집 매매 신고처럼 조사받나요?",
    "부동산_거래신고_등에_관한_법률_시행규칙/제17조": "허가받고 산 땅을 다른 용도로 쓰겠다고 신청하면 며칠 안에 답이 오나요?",
    "부동산_거래신고_등에_관한_법률_시행규칙/제12조": "허가구역 땅 거래 허가가 나면 그 땅 정보가 인터넷에 공개되나요?",
    "부동산_거래신고_등에_관한_법률_시행령/제10조": "농사짓는 사람이 허가구역 땅을 사려면 사는 곳에서 얼마나 가까워야 하나요?",
    "부동산_거래신고_등에_관한_법률_시행령/제14조": "허가받아 산 땅을 법이 바뀌어서 원래 계획대로 못 쓰게 되면 그래도 문제가 되나요?",
    "부동산등기규칙/제136조": "여러 필지에 같이 잡힌 대출 담보 중 한 필지만 풀면 등기부에 어떻게 표시되나요?",
    "부동산등기규칙/제109조": "등기 마치고 권리증 같은 걸 석 달 넘게 안 받아 가면 어떻게 되나요?",
    "부동산등기법/제72조": "전세를 등기부에 올리면 보증금이나 기간 같은 게 다 나오나요?",
    "부동산등기법/제45조": "제가 돈을 빌려주고 담보로 잡아둔 건물을 주인이 헐었다고 등기에서 지우려 하면 저한테 알려주나요?",
    "주택법/제55조": "청약 당첨자 자격을 확인하려고 정부가 제 세금이나 건강보험 정보까지 볼 수 있나요?",
    "주택법/제101조": "분양권을 몰래 되팔다 걸리면 감옥까지 갈 수 있나요?",
    "주택법_시행규칙/제25조의4": "우리 동네를 부동산 규제지역에서 풀어달라고 하면 언제까지 결론이 나나요?",
    "주택임대차보호법/제14조": "집주인이랑 수리 문제로 다투는데 소송 말고 중간에서 해결해 주는 곳이 있나요?",
    "주택임대차보호법/제20조": "분쟁조정 담당자가 집주인 친척이면 다른 사람으로 바꿔 달라고 할 수 있나요?",
    "주택임대차보호법_시행령/제22조": "중개수수료 문제로 다투는 것도 전월세 분쟁조정에서 다뤄주나요?",
}
# Drawn by drawn2, but no member of the public asks about them (internal reports, delegation, form terms).
SKIPPED2 = {
    "건축물의_분양에_관한_법률_시행규칙/제4조",
    "공동주택_분양가격의_산정_등에_관한_규칙/제6조",
    "공인중개사법_시행규칙/제6조",
    "공인중개사법_시행령/제32조",
    "부동산_가격공시에_관한_법률_시행규칙/제6조",
    "주택법_시행규칙/제30조",
    "주택임대차보호법_시행령/제12조",
}
# Issue 35's general rules, asked about a specific clause or term: dev only.
GENERAL_RULES = [
    (
        "계약서에 '임차인은 계약 기간 중 어떤 경우에도 대항력을 주장하지 않는다'는 특약이 있는데 이대로 따라야 하나요?",
        ["주택임대차보호법/제10조"],
        "a term giving up a right the Act gives the tenant is void (제10조 강행규정)",
    ),
    (
        "집주인이 갱신 요구는 안 하기로 하는 조건을 계약서에 넣자고 하는데, 서명하면 나중에 갱신을 못 하나요?",
        ["주택임대차보호법/제10조"],
        "a waiver of the renewal right is a term against the tenant: void (제10조)",
    ),
    ("세입자 보호 법은 애초에 뭘 하려고 만든 법인가요?", ["주택임대차보호법/제1조"], "the law's purpose"),
]


def corpus() -> dict[str, dict]:
    return {row["id"]: row for row in map(json.loads, CORPUS.read_text(encoding="utf-8").splitlines())}


def labelled() -> set[str]:
    ids = set()
    for path in LABELLED:
        for row in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
            ids.update(row.get("gold_articles", []), row.get("acceptable_articles", []))
    return ids


def draw(articles: dict[str, dict], seed: int, per_law, exclude: set[str]) -> list[str]:
    """`per_law(law)` articles of each instrument, drawn by random.Random(seed) among those a person might
    ask about and not in `exclude`."""
    by_law: dict[str, list[dict]] = defaultdict(list)
    for a in articles.values():
        skip = a["is_supplementary"] or a["is_deleted"] or a["is_fragment"] or a.get("future_effective_date")
        if skip or a["id"] in exclude or len(a["text"]) < 120 or SKIP_TITLE.search(a["article_title"] or ""):
            continue
        by_law[a["law_title"]].append(a)
    rng = random.Random(seed)
    ids = []
    for law in sorted(by_law):
        n = per_law(law)
        ids += [a["id"] for a in rng.sample(by_law[law], min(n, len(by_law[law])))]
    return ids


def drawn(articles: dict[str, dict]) -> list[str]:
    return draw(articles, 3535, lambda law: 6 if law.startswith(MOST_ASKED) else 3, labelled())


def drawn2(articles: dict[str, dict]) -> list[str]:
    return draw(articles, 4242, lambda law: 2, labelled() | set(drawn(articles)))


def family(articles: dict[str, dict], article_id: str) -> list[str]:
    parent = articles[article_id]["parent_law"]
    return sorted({a["law_title"] for a in articles.values() if a["parent_law"] == parent})


def neighbours(articles: dict[str, dict], article_id: str) -> list[str]:
    """Articles linked by delegation: "법 제N조" / "영 제N조" named by the article, or naming it."""
    a = articles[article_id]
    law = a["law_title"]
    statute = a["parent_law"]
    decree = f"{statute} 시행령"
    found = []
    for ref_law, number in re.findall(r"(법|영) (제\d+조(?:의\d+)?)", a["text"]):
        target = statute if ref_law == "법" else decree
        found.append(f"{target.replace(' ', '_')}/{number}")
    if a["doc_type"] == "법률":
        pattern = re.compile(rf"법 {re.escape(a['article_number'])}(?![의\d])")
        found += [
            b["id"]
            for b in articles.values()
            if b["parent_law"] == law
            and b["law_title"] != law
            and not b["is_supplementary"]
            and pattern.search(b["text"])
        ]
    elif a["doc_type"] == "시행령":
        pattern = re.compile(rf"영 {re.escape(a['article_number'])}(?![의\d])")
        found += [
            b["id"]
            for b in articles.values()
            if b["law_title"] == f"{statute} 시행규칙"
            and not b["is_supplementary"]
            and pattern.search(b["text"])
        ]
    return [i for i in dict.fromkeys(found) if i in articles and i != article_id][:4]


def row(articles, key, question, gold, note):
    accept = [n for g in gold for n in neighbours(articles, g) if n not in gold]
    return {
        "id": key,
        "question": question,
        "law_titles": family(articles, gold[0]),
        "gold_articles": gold,
        "acceptable_articles": list(dict.fromkeys(accept)),
        "status": "ok",
        "note": note,
    }


def main() -> None:
    articles = corpus()
    ids = drawn(articles)
    assert set(QUESTIONS) | SKIPPED == set(ids), set(ids) ^ (set(QUESTIONS) | SKIPPED)
    asked = [i for i in ids if i in QUESTIONS]
    note = "written from the drawn article's text, in a person's words, before the system was asked"
    dev = [
        row(articles, f"statutes-dev-{n:02d}", QUESTIONS[i], [i], note) for n, i in enumerate(asked[0::2], 1)
    ]
    dev += [
        row(articles, f"statutes-dev-{len(dev) + n:02d}", q, g, w)
        for n, (q, g, w) in enumerate(GENERAL_RULES, 1)
    ]
    held = [
        row(articles, f"statutes-held-{n:02d}", QUESTIONS[i], [i], note) for n, i in enumerate(asked[1::2], 1)
    ]
    ids2 = drawn2(articles)
    assert set(QUESTIONS2) | SKIPPED2 == set(ids2), set(ids2) ^ (set(QUESTIONS2) | SKIPPED2)
    held2 = [
        row(articles, f"statutes-held2-{n:02d}", QUESTIONS2[i], [i], note)
        for n, i in enumerate((i for i in ids2 if i in QUESTIONS2), 1)
    ]
    batches = (
        ("legal_statutes_dev.jsonl", dev),
        ("legal_statutes_heldout.jsonl", held),
        ("legal_statutes_heldout2.jsonl", held2),
    )
    for name, rows in batches:
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        (HERE.parent / name).write_text(text, encoding="utf-8")
        print(name, len(rows))


if __name__ == "__main__":
    main()
