"""The run's one `response_synthesis` call, against the fake OpenAI server: with an endpoint a run that
analyses makes two LLM calls (planning, then the answer); what the answer adds is held to the steps'
results; and when the call fails, or says nothing grounded, the rules answer stands unchanged.

The whole system runs on real NATS and Postgres (tests/integration/test_run_end_to_end.py's `jipsa`),
its services reading the endpoint from the environment as they do in production.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from contracts.results import Figure, StepResult
from contracts.telemetry import LlmCallRecorded
from contracts.values import Intent, IntentType, PlanStep, Team
from services.platform.eventstore import EventStore
from services.platform.llm import LlmClient, LlmSettings
from services.supervisor.response import compose
from services.supervisor.run import RunState, StepState, fold
from services.supervisor.synthesis import respond_with
from tests.bench.compare import planning_reply
from tests.fake_openai import FakeOpenAI, Reply, fake_openai_fixture  # noqa: F401  (fixture: fake_openai)
from tests.integration.test_run_end_to_end import ask, jipsa

pytestmark = pytest.mark.integration

# Several searches, then a market analysis and a loan simulation fed by them.
COMPREHENSIVE = "강남구 아파트 전세 3억에 들어가려는데 시세, 대출, 법적으로 주의할 점 다 알려줘"
LEAD = "강남구 아파트 전세 시세와 대출 조건을 조회 결과에 근거해 정리했습니다."
KEPT_INSIGHT = "- 등기부등본으로 선순위 채권을 먼저 확인하세요"
UNGROUNDED = "- 인근 단지 실거래가는 987,654만원입니다"
SYNTHESIS = f"{LEAD}\n\n**핵심 인사이트**\n{UNGROUNDED}\n\n**권장 사항**\n{KEPT_INSIGHT}"


@pytest.fixture
def endpoint(fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> FakeOpenAI:
    """Every service of the run reads this endpoint (and nothing a developer's shell set)."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "JIPSA_LLM_", "JIPSA_EMBEDDING_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("JIPSA_LLM_TIMEOUT_S", "5")
    fake_openai.set_default(planning_reply(COMPREHENSIVE), call_point="planning")
    return fake_openai


async def llm_calls(store: EventStore, run_id: str) -> list[LlmCallRecorded]:
    return [
        r.event() for r in await store.read_correlation(run_id) if r.envelope.event_type == "LlmCallRecorded"
    ]


async def rules_answer(store: EventStore, run_id: str) -> str:
    """What the rules compose from the run's own events, as the supervisor does without a model."""
    return compose(fold(run_id, [r.envelope for r in await store.read_stream(f"run-{run_id}")])).answer


async def test_a_run_that_analyses_makes_two_calls_and_what_the_answer_adds_is_held_to_its_results(
    store: EventStore, infra, endpoint: FakeOpenAI
) -> None:
    endpoint.set_default(Reply.text(SYNTHESIS), call_point="response_synthesis")
    async with jipsa(store, infra) as gateway:
        code, run = await ask(gateway, COMPREHENSIVE)

    steps = run["plan"]["steps"]
    assert code == 0 and run["intent"]["type"] == "COMPREHENSIVE", run
    assert "analysis" in {s["team"] for s in steps} and all(s["status"] == "completed" for s in steps)
    chat = [r.call_point for r in endpoint.requests if r.path.endswith("/chat/completions")]
    calls = await llm_calls(store, run["run_id"])
    assert chat == ["planning", "response_synthesis"], (chat, calls)
    assert sorted((c.call_point, c.outcome) for c in calls) == [
        ("planning", "ok"),
        ("response_synthesis", "ok"),
    ]
    answer = run["response"]["answer"]
    assert LEAD in answer and KEPT_INSIGHT in answer and "**권장 사항**" in answer
    assert "987,654" not in answer and "실거래가는" not in answer
    # what the model was given to draw insights from: the analyses' headlines, findings and figures
    (synthesis,) = endpoint.requests_for("response_synthesis")
    given = synthesis.messages[-1]["content"]
    assert '"headline"' in given and '"figures"' in given


async def test_when_the_synthesis_call_fails_the_rules_answer_stands(
    store: EventStore, infra, endpoint: FakeOpenAI
) -> None:
    endpoint.set_default(Reply.error(500), call_point="response_synthesis")
    async with jipsa(store, infra) as gateway:
        code, run = await ask(gateway, COMPREHENSIVE)

    assert code == 0 and run["response"]["type"] == "answer"
    assert run["response"]["answer"] == await rules_answer(store, run["run_id"])
    calls = {c.call_point: c for c in await llm_calls(store, run["run_id"])}
    assert set(calls) == {"planning", "response_synthesis"}
    assert calls["response_synthesis"].fallback_used and calls["response_synthesis"].outcome == "error"


async def test_a_model_answer_holding_a_nul_is_answered_without_it(
    store: EventStore, infra, endpoint: FakeOpenAI
) -> None:
    """A NUL in the model's text (Postgres refuses it, as it does an unpaired surrogate): left in, the
    answer's event could never be appended, and the run would not end with its answer."""
    stray = SYNTHESIS.replace("조회", "조\x00회", 1)
    endpoint.set_default(Reply.text(stray), call_point="response_synthesis")
    async with jipsa(store, infra) as gateway:
        code, run = await ask(gateway, COMPREHENSIVE)

    assert code == 0 and run["response"]["type"] == "answer", run
    assert LEAD in run["response"]["answer"]


# --- the same rules on one run's state, without the system around it -------------------------------------

RENT = StepResult(
    headline="요구한 인상률 16.67%는 5% 상한을 넘습니다",
    figures=[Figure(label="법정 상한 보증금", value=31500, unit="만원")],
)


def analysed() -> RunState:
    spec = PlanStep(step_id="check-rent", team=Team.ANALYSIS, task="전세금 인상 한도 계산")
    step = StepState(spec=spec, status="completed", result=RENT)
    intent = Intent(type=IntentType.LEGAL_CONSULT, confidence=0.9)
    return RunState(run_id="r1", query="3억을 3억5천으로", intent=intent, steps={"check-rent": step})


@pytest.fixture
async def llm(fake_openai: FakeOpenAI):
    client = LlmClient(LlmSettings(OPENAI_BASE_URL=fake_openai.base_url, JIPSA_LLM_TIMEOUT_S=2))
    yield client
    await client.close()


async def test_lines_quoting_numbers_no_step_produced_are_dropped(llm, fake_openai: FakeOpenAI) -> None:
    answer = "\n".join(
        [
            "법정 상한은 31,500만원입니다.",
            "- 시세는 12억입니다",
            "- 주의: 초과분을 주면 돌려받기 어렵습니다",
            "- 권장: 갱신요구권 행사를 서면으로 알리세요",
        ]
    )
    fake_openai.script(Reply.text(answer), call_point="response_synthesis")
    record, response = await respond_with(llm)(analysed())
    assert response.answer == "\n".join(
        [
            "법정 상한은 31,500만원입니다.",
            "- 주의: 초과분을 주면 돌려받기 어렵습니다",
            "- 권장: 갱신요구권 행사를 서면으로 알리세요",
        ]
    )
    assert record.call_point == "response_synthesis" and record.outcome == "ok"


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ("상한은 주택임대차보호법 제99조에 따라 31,500만원입니다.", "ungrounded citation"),
        ("시세는 12억입니다\n\n- 전세가율 85%", "no line grounded in the results"),
    ],
)
async def test_an_answer_that_cites_or_says_nothing_grounded_leaves_the_rules_answer(
    llm, fake_openai: FakeOpenAI, reply: str, error: str
) -> None:
    state = analysed()
    fake_openai.script(Reply.text(reply), call_point="response_synthesis")
    record, response = await respond_with(llm)(state)
    assert response == compose(state)
    assert (record.outcome, record.fallback_used, record.error) == ("invalid_output", True, error)


async def test_without_an_endpoint_or_with_a_failing_one_the_rules_answer_stands(
    llm, fake_openai: FakeOpenAI
) -> None:
    state = analysed()
    record, response = await respond_with(LlmClient(LlmSettings(OPENAI_BASE_URL=None, OPENAI_API_KEY=None)))(
        state
    )
    assert response == compose(state) and record.outcome == "not_configured"
    fake_openai.script(Reply.error(500), Reply.error(500), call_point="response_synthesis")
    record, response = await respond_with(llm)(state)
    assert response == compose(state) and record.fallback_used and record.outcome == "error"


async def test_two_decisions_to_answer_one_run_ask_the_model_once(llm, fake_openai: FakeOpenAI) -> None:
    """The run's last two steps finishing together trigger two decisions to answer before either is
    recorded (the loser decides again and is rolled back): the model is asked once, both get its answer."""
    fake_openai.set_default(
        Reply.text("법정 상한은 31,500만원입니다.", delay_s=0.2), call_point="response_synthesis"
    )
    respond = respond_with(llm)
    first, second = await asyncio.gather(respond(analysed()), respond(analysed()))
    again = await respond(analysed())
    assert first == second == again and first[-1].answer == "법정 상한은 31,500만원입니다."
    assert len(fake_openai.requests_for("response_synthesis")) == 1
