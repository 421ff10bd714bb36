"""A contract pasted into a question, told from a question that only speaks of one."""

from __future__ import annotations

import pytest

from services.housing.contract_text import looks_like_contract

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "text",
    [
        "특약 좀 봐주세요\n특약1. 임차인은 계약갱신요구권을 행사하지 않기로 한다.\n"
        "특약2. 보증금은 매년 10% 인상한다.",
        "서명해도 돼요?\n특약: 임대차 기간은 1년으로 하며, 임차인은 기간 만료 시 "
        "갱신을 요구하지 않고 퇴거한다.",
        "제1조(목적) 임대인은 임차인에게 … 제2조(존속기간) 2026.2.1부터 24개월로 한다.",
        "임대인 홍길동\n임차인 김철수\n보증금 1억원, 기간 2년",
        # the wording after a colon, on one line
        "계약서 검토해줘: 임차인은 계약기간 중 어떠한 경우에도 보증금 증액을 거부할 수 없다. "
        "임차인은 퇴거 시 도배 장판 비용 전액을 부담한다.",
        "이 특약 좀 봐주세요: 임차인은 반려동물을 키울 수 없다",
    ],
)
def test_pasted_contracts_and_special_terms_are_recognised(text: str) -> None:
    assert looks_like_contract(text)


@pytest.mark.parametrize(
    "text",
    [
        "주택임대차보호법 제7조에 따르면 집주인이 보증금을 5% 넘게 올릴 수 있나요?",
        "임대인이 임차인에게 보증금을 안 돌려주면 어떻게 하나요?",
        "특약에 뭘 넣어야 하나요?",
        "확인해줘: 계약 끝나면 보증금 돌려받을 수 있나요?",  # a question after the colon
        "전세 계약할 때 확인할 것: 등기부등본 보기",
    ],
)
def test_questions_that_only_speak_of_a_contract_are_not_one(text: str) -> None:
    assert not looks_like_contract(text)
