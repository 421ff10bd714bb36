"""The LLM's judgement on top of the analysis rules, against the fake OpenAI server: added, never
trusted with a number or a clause or an article it was not given."""

from __future__ import annotations

import pytest

from contracts.results import Figure, StepResult
from contracts.values import Citation
from services.analysis.judgement import contract_judgement, insight_findings
from services.platform.llm import LlmClient, LlmSettings
from tests.fake_openai import FakeOpenAI, Reply, fake_openai_fixture  # noqa: F401  (fixture: fake_openai)

pytestmark = pytest.mark.integration

RENT = StepResult(
    headline="요구한 인상률 16.67%는 5% 상한을 넘습니다",
    figures=[Figure(label="법정 상한 보증금", value=31500, unit="만원")],
)
CONTRACT = "제5조 임차인은 계약갱신요구권을 행사하지 않는다.\n제6조 보증금은 새 임차인이 들어온 뒤 돌려준다."
REVIEW = StepResult(
    findings=["갱신요구권 포기 특약은 무효입니다"],
    citations=[
        Citation(article_id="주택임대차보호법/제10조", law="주택임대차보호법", article="제10조", text="…무효")
    ],
)


@pytest.fixture
async def llm(fake_openai: FakeOpenAI):
    client = LlmClient(LlmSettings(OPENAI_BASE_URL=fake_openai.base_url, JIPSA_LLM_TIMEOUT_S=2))
    yield client
    await client.close()


async def test_insights_that_quote_numbers_the_analyses_lack_are_dropped(
    llm, fake_openai: FakeOpenAI
) -> None:
    answer = {
        "key_insights": ["법정 상한은 31,500만원입니다", "시세는 12억입니다"],
        "risks": ["초과분을 주면 돌려받기 어렵습니다"],
        "recommendations": ["갱신요구권 행사를 서면으로 알리세요"],
        "confidence": 0.8,
    }
    fake_openai.script(Reply.json(answer), call_point="insight_synthesis")
    findings, (record,) = await insight_findings(llm, "3억을 3억5천으로", {"rent_increase": RENT}, "r1")
    assert findings == [
        "법정 상한은 31,500만원입니다",
        "주의: 초과분을 주면 돌려받기 어렵습니다",
        "권장: 갱신요구권 행사를 서면으로 알리세요",
    ]
    assert record.call_point == "insight_synthesis" and record.outcome == "ok"


async def test_contract_risks_must_quote_the_contract_and_cite_shown_articles(
    llm, fake_openai: FakeOpenAI
) -> None:
    risks = [
        {
            "clause": "보증금은 새 임차인이 들어온 뒤 돌려준다",
            "severity": "high",
            "issue": "반환 시기가 불확정",
            "article_ids": [],
        },
        {
            "clause": "임차인은 월세를 두 배로 낸다",
            "severity": "high",
            "issue": "없는 조항",
            "article_ids": [],
        },
        {
            "clause": "계약갱신요구권을 행사하지 않는다",
            "severity": "high",
            "issue": "무효",
            "article_ids": ["민법/제1조"],
        },
    ]
    answer = {"risks": risks, "missing_clauses": ["확정일자 협조"], "summary": "반환 시기가 문제입니다"}
    fake_openai.script(Reply.json(answer), call_point="contract_analysis")
    findings, (record,) = await contract_judgement(llm, CONTRACT, REVIEW, "r1")
    assert findings == [
        "AI 검토(high): 「보증금은 새 임차인이 들어온 뒤 돌려준다」 반환 시기가 불확정",
        "AI 검토: 빠진 조항 - 확정일자 협조",
    ]
    assert record.outcome == "ok"


async def test_without_an_endpoint_or_with_a_failing_one_the_rules_stand(
    llm, fake_openai: FakeOpenAI
) -> None:
    assert await insight_findings(LlmClient(LlmSettings()), "q", {"rent_increase": RENT}, "r1") == ([], [])
    fake_openai.script(Reply.error(500), Reply.error(500), call_point="insight_synthesis")
    findings, (record,) = await insight_findings(llm, "q", {"rent_increase": RENT}, "r1")
    assert findings == [] and record.fallback_used
