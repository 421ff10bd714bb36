"""The policy tool (정책 매칭): in-force programmes matched against the person's profile, eligible ones
first; the profile fields that would settle the open conditions are asked for."""

from __future__ import annotations

from contracts.results import Question, StepResult
from services.analysis.case import Case
from services.analysis.policy.eligibility import Match, match
from services.analysis.profile import read_profile
from services.analysis.rules.policies import PolicyBook, ended_named
from services.housing.dated_rules import in_force

QUESTIONS = {
    "age": Question(field="age", label="만 나이", hint="예: 만 29세"),
    "income_manwon": Question(field="income_manwon", label="연소득 (부부합산)", hint="예: 연소득 4천만원"),
    "net_assets_manwon": Question(field="net_assets_manwon", label="순자산 (부부합산)", hint="예: 자산 1억"),
    "house_count": Question(field="house_count", label="주택 보유 여부", hint="무주택 / 1주택 …"),
    "marriage_years": Question(
        field="marriage_years", label="결혼 여부와 혼인 기간", hint="예: 결혼 3년차, 결혼 예정, 미혼"
    ),
    "newborn": Question(field="newborn", label="최근 2년 내 출산·입양 여부"),
    "first_home": Question(
        field="first_home", label="생애최초 주택 구입인지 (본인·배우자 모두 주택 보유 이력 없음)"
    ),
}
STATUS_ORDER = {"eligible": 0, "possible": 1, "not_eligible": 2}
STATUS_NAMES = {"eligible": "조건 충족", "possible": "추가 확인 필요", "not_eligible": "조건 불충족"}


def policy_matching(case: Case, book: PolicyBook) -> StepResult:
    day = case.day()
    profile = read_profile(case)
    current = in_force(book.programmes, day)
    matches = sorted((match(p, profile) for p in current), key=lambda m: STATUS_ORDER[m.status])
    open_fields = {k for m in matches if m.status != "not_eligible" for k in m.unchecked}
    findings = [match_sentence(m) for m in matches if m.status != "not_eligible"]
    excluded = [m for m in matches if m.status == "not_eligible"]
    if excluded:
        findings.append(
            "조건이 맞지 않는 프로그램: "
            + "; ".join(f"{m.programme.name} ({', '.join(m.failed)})" for m in excluded)
        )
    findings += [
        f"{p.name}은(는) {p.effective_to}에 끝나 지금은 신청할 수 없습니다. {p.note or ''}".strip()
        for p in ended_named(book, case.query, day)
    ]
    return StepResult(
        headline=headline(matches),
        findings=findings,
        questions=[QUESTIONS[k] for k in QUESTIONS if k in open_fields],
        data={"policy": {"as_of": day.isoformat(), "matches": [match_data(m) for m in matches]}},
    )


def match_sentence(m: Match) -> str:
    p = m.programme
    parts = [f"{p.name} [{STATUS_NAMES[m.status]}]"]
    if m.met:
        parts.append("충족: " + ", ".join(m.met))
    if m.unchecked:
        parts.append("확인 못 함: " + ", ".join(m.unchecked.values()))
    if p.eligibility.other:
        parts.append("그 밖의 요건: " + p.eligibility.other)
    parts.append("혜택: " + ", ".join(p.benefits))
    parts.append(f"출처: {p.source.title} ({p.source.date})")
    return " — ".join(parts)


def headline(matches: list[Match]) -> str:
    eligible = [m.programme.name for m in matches if m.status == "eligible"]
    possible = [m.programme.name for m in matches if m.status == "possible"]
    if eligible:
        return f"조건을 모두 충족하는 지원: {', '.join(eligible)}" + (
            f" (추가 확인 필요: {len(possible)}건)" if possible else ""
        )
    if possible:
        return f"받을 수 있을지 확인이 필요한 지원 {len(possible)}건: {', '.join(possible[:3])}"
    return "지금 시행 중인 주거 지원 중 조건이 맞는 프로그램이 없습니다."


def match_data(m: Match) -> dict:
    return {
        "id": m.programme.id,
        "name": m.programme.name,
        "status": m.status,
        "met": m.met,
        "failed": m.failed,
        "unchecked": list(m.unchecked.values()),
        "effective_to": m.programme.effective_to.isoformat() if m.programme.effective_to else None,
    }
