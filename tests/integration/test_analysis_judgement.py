"""The LLM's judgement on top of the analysis rules, against the fake OpenAI server: added to a pasted
contract's review, never trusted with a clause or an article it was not given; and asked nothing else."""

from __future__ import annotations

import pytest

from contracts.results import StepResult
from contracts.steps import plan_inputs
from contracts.values import Citation, Team
from services.analysis.bootstrap import load_library
from services.analysis.handlers import analyse
from services.analysis.lease_contract.judgement import contract_judgement
from services.planner.plan_rules import plan_by_rules
from services.platform.llm import LlmClient, LlmSettings
from services.platform.team import StepWork
from tests.fake_openai import FakeOpenAI, Reply, fake_openai_fixture  # noqa: F401  (fixture: fake_openai)

pytestmark = pytest.mark.integration

RAISE = "전세금 3억인데 3억 5천으로 올려달래요"
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
    unconfigured = LlmClient(LlmSettings(OPENAI_BASE_URL=None, OPENAI_API_KEY=None))
    assert await contract_judgement(unconfigured, CONTRACT, REVIEW, "r1") == ([], [])
    fake_openai.script(Reply.error(500), Reply.error(500), call_point="contract_analysis")
    findings, (record,) = await contract_judgement(llm, CONTRACT, REVIEW, "r1")
    assert findings == [] and record.fallback_used


async def test_an_analysis_asks_the_model_nothing_beyond_a_pasted_contract(
    llm, fake_openai: FakeOpenAI
) -> None:
    """Insights on the analyses as a whole are the supervisor's `response_synthesis` to write, in the
    run's one call after planning: an analysis with its focus set calls no model."""
    (spec,) = [s for s in plan_by_rules(RAISE).steps if s.team == Team.ANALYSIS]
    step = StepWork("r1", spec.step_id, spec.task, plan_inputs(spec.inputs), dependency_results={}, attempt=1)
    output = await analyse(step, load_library(), llm)
    assert output.result.figures and output.llm_calls == [] and fake_openai.requests == []
