"""Policy matching: conditions met / failed / unchecked, ended programmes not offered, missing profile
fields asked, and policies.json validated."""

from __future__ import annotations

import pytest

from services.analysis.policy.eligibility import match
from services.analysis.policy.matching import policy_matching
from services.analysis.profile import Profile, read_profile
from services.analysis.rules.policies import PolicyBook
from tests.unit.step_results import read_case

pytestmark = pytest.mark.unit
BOOK = PolicyBook.load()


def run(query: str, as_of: str = "2026-01-10"):
    return policy_matching(read_case(query, None, {"as_of": as_of}), BOOK)


def statuses(result) -> dict[str, str]:
    return {m["id"]: m["status"] for m in result.data["policy"]["matches"]}


def programme(pid: str):
    return next(p for p in BOOK.programmes if p.id == pid)


def test_a_young_single_renter_matches_the_youth_programmes() -> None:
    result = run("만 29세 미혼 연소득 4천, 자산 1억, 무주택 청년 지원")
    found = statuses(result)
    assert found["youth_beotimmok"] == "eligible" and found["youth_housing_dream_account"] == "eligible"
    assert found["newlywed_jeonse"] == "not_eligible"
    assert "청년 전용 버팀목" in result.headline


def test_an_expired_programme_is_not_offered_but_named_as_ended() -> None:
    result = run("만 25세 무주택 청년 월세 지원 받을 수 있나요")
    assert "youth_monthly_rent_2" not in statuses(result)
    assert any("2025-02-25에 끝나" in f for f in result.findings)
    # while it ran, it was offered
    assert "youth_monthly_rent_2" in statuses(run("만 25세 무주택 청년 월세 지원", as_of="2024-06-01"))


def test_income_above_the_cap_fails_with_the_reason() -> None:
    m = match(programme("youth_beotimmok"), Profile(age=30, income_manwon=7000, house_count=0))
    assert m.status == "not_eligible" and any("7,000만원" in f for f in m.failed)
    assert "만 19~34세 (만 30세)" in m.met


def test_newlyweds_by_years_and_engaged() -> None:
    three = read_profile(read_case("결혼 3년차 신혼부부 연소득 7천 무주택"))
    assert match(programme("newlywed_jeonse"), three).failed == []
    nine = read_profile(read_case("결혼 9년차 연소득 7천 무주택"))
    assert match(programme("newlywed_jeonse"), nine).status == "not_eligible"
    engaged = read_profile(read_case("결혼 예정 연소득 6천 무주택"))
    assert any("결혼 예정" in c for c in match(programme("newlywed_jeonse"), engaged).met)


def test_missing_profile_fields_are_asked() -> None:
    result = run("주거 지원 정책 뭐 있어요?")
    asked = {q.field for q in result.questions}
    assert {"age", "income_manwon", "house_count", "marriage_years"} <= asked
    assert all(m["status"] == "possible" for m in result.data["policy"]["matches"])


def test_each_match_says_what_it_met_and_could_not_check() -> None:
    result = run("신생아 출산 가구 연소득 1억 무주택 지원")
    newborn = next(m for m in result.data["policy"]["matches"] if m["id"] == "newborn_special_jeonse")
    assert any("출산" in c for c in newborn["met"]) and "순자산 34,500만원 이하" in newborn["unchecked"]


def test_policy_file_is_dated_and_sane() -> None:
    ids = [p.id for p in BOOK.programmes]
    assert len(ids) == len(set(ids)) and BOOK.as_of
    for p in BOOK.programmes:
        assert p.effective_to is None or p.effective_from <= p.effective_to
        assert p.source.date <= p.effective_from, p.id  # announced before it started
        e = p.eligibility
        assert e.age_min is None or e.age_max is None or e.age_min <= e.age_max
        assert e.income_cap_manwon is None or 1000 <= e.income_cap_manwon <= 30000  # 만원 a year
    assert any(p.effective_to and p.effective_to < BOOK.as_of for p in BOOK.programmes)
