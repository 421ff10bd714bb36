"""`python -m tests.bench.compare`: Jipsa against the seed's LangGraph design, measured in one run.

Both sides answer the same questions on the same machine at the same moment:
- LangGraph: tests/bench/langgraph_baseline.py, the seed's StateGraph with an AsyncSqliteSaver checkpoint
  file, driven in-process with `ainvoke` (no socket in front of it);
- Jipsa: the gateway, planner, supervisor, search, analysis and document services and the relay and
  projector, in this process on real NATS and Postgres (tests/integration/test_run_end_to_end.py's
  `jipsa`), driven as a person is: POST /api/sessions, then `query` frames on the session's WebSocket,
  timed from the frame sent to the run's `final_response` received.

Figures:
1. orchestration overhead in rules mode, p50/p99 over --runs sequential runs per path: end to end, and
   end to end minus the team work on the run's critical path (StepCompleted.duration_ms for Jipsa, the
   team functions' own time for LangGraph), since Jipsa's teams do their real work;
2. throughput (runs/s) of the two-team question at 1 and at --concurrency concurrent runs;
3. with a fake OpenAI server (tests/fake_openai.py) answering every call after --llm-delay-ms, the end
   to end time of the seed's three example questions (median of --llm-runs) and the LLM requests the
   server received during each run: every one is awaited in turn, so all sit on the critical path.

Defaults finish in well under 3 minutes on 2 shared cores. Servers: as tests/servers.py finds them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import statistics
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx
import psycopg
import websockets

from contracts.values import Intent
from services.planner.llm_plan import PlanningAnswer
from services.planner.plan_rules import plan_by_rules
from services.platform import heap, loop
from services.platform.db import migrate, open_pool, read_rows
from services.platform.eventstore import EventStore
from services.platform.settings import InfraSettings
from services.projector.runner import Projector
from tests.bench.cpu import Meter, per_run_lines
from tests.bench.langgraph_baseline import SeedLlm, run_seed, seed_app, team_work_ms
from tests.fake_openai import FakeOpenAI, Reply
from tests.integration.gateway_helpers import Gateway
from tests.integration.test_run_end_to_end import jipsa
from tests.servers import ServerUrls, real_servers

SEVERAL = "강남구 아파트 전세 시세와 위험도 분석해줘"
LEGAL = "전세금 5% 인상 제한이 언제까지인가요?"
GREETING = "안녕"
SEED_QUERIES = (SEVERAL, LEGAL, GREETING)
WARMUP_RUNS = 3
RUN_TIMEOUT_S = 120.0
# What the fake model answers at each call point; the contents matter only where Jipsa validates them.
SEED_REPLIES: dict[str, Any] = {
    "intent_analysis": {"intent": "MARKET_INQUIRY", "confidence": 0.9, "keywords": ["전세"]},
    "agent_selection": {"selected_agents": ["search_team", "analysis_team"]},
    "query_decomposition": {"sub_tasks": ["시세 조회", "위험도 분석"]},
    "keyword_extraction": {"legal": ["전세"], "real_estate": ["아파트"], "location": ["강남구"]},
    "search_tool_selection": {"selected_tools": ["legal_search", "market_data"]},
    "analysis_tool_selection": {"selected_tools": ["market_analysis"]},
    "market_insight": {"insights": ["시세 안정"]},
    "insight_synthesis": {"summary": "보통 수준의 위험"},
}
# Figures a run may ask the person for (input_request); other questions get their hint's example.
FIGURES = {"deposit_manwon": "3억", "market_value_manwon": "5억", "current_deposit_manwon": "3억"}
SYNTHESIS_TEXT = "요청하신 내용을 조회 결과에 근거해 정리했습니다."

Ask = Callable[[str], Awaitable["Timed"]]


@dataclass(frozen=True)
class Timed:
    seconds: float
    team_work_s: float = 0.0  # on the critical path; filled in after the batch for Jipsa
    run_id: str = ""
    llm_calls: tuple[str, ...] = ()
    inputs_asked: int = 0  # input_request round trips the run made (Jipsa asks; the seed invented)
    stuck: bool = False  # a step asked again after its answer: timed to that request, then cancelled

    @property
    def overhead_s(self) -> float:
        return self.seconds - self.team_work_s


@dataclass
class Figures:
    """Every figure of one side, keyed by row name."""

    latency: dict[str, list[Timed]] = field(default_factory=dict)
    throughput: dict[int, float] = field(default_factory=dict)
    llm: dict[str, list[Timed]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)  # CPU-seconds per process over the concurrent batch


# --- drivers, the same for both sides ------------------------------------------------------------------


async def sequential(ask: Ask, query: str, runs: int) -> tuple[list[Timed], float]:
    """`runs` runs one after another: their times, and runs per second over the batch."""
    began = time.perf_counter()
    timed = [await ask(query) for _ in range(runs)]
    return timed, runs / (time.perf_counter() - began)


async def concurrent(asks: list[Ask], query: str, runs: int) -> float:
    """`runs` runs through len(asks) workers, each asking again as soon as its last run answered."""
    left = iter(range(runs))

    async def worker(ask: Ask) -> None:
        for _ in left:
            await ask(query)

    began = time.perf_counter()
    await asyncio.gather(*(worker(ask) for ask in asks))
    return runs / (time.perf_counter() - began)


async def warm_up(ask: Ask, runs: int = WARMUP_RUNS) -> None:
    """First runs pay for imports, caches and connections; neither side is measured on them."""
    for query in SEED_QUERIES:
        for _ in range(runs):
            await ask(query)


# --- LangGraph -----------------------------------------------------------------------------------------


def seed_ask(app) -> Ask:
    async def ask(query: str) -> Timed:
        began = time.perf_counter()
        state = await run_seed(app, query)
        seconds = time.perf_counter() - began
        return Timed(seconds, team_work_ms(state) / 1000, state["run_id"], tuple(state.get("llm_calls", ())))

    return ask


async def measure_seed(scratch: Path, opts: argparse.Namespace, fake: FakeOpenAI) -> Figures:
    figures = Figures()
    async with seed_app(scratch / "rules.db") as app:
        ask = seed_ask(app)
        await warm_up(ask)
        figures.latency["greeting"], _ = await sequential(ask, GREETING, opts.runs)
        figures.latency["several"], figures.throughput[1] = await sequential(ask, SEVERAL, opts.runs)
        with Meter({"LangGraph (graph + client)": os.getpid()}, {}).measuring() as figures.cpu:
            figures.throughput[opts.concurrency] = await concurrent(
                [ask] * opts.concurrency, SEVERAL, opts.concurrent_runs
            )
    llm = SeedLlm.at(fake.base_url, all_calls=opts.all_seed_calls)
    async with seed_app(scratch / "llm.db", llm) as app:
        await warm_up(seed_ask(app), runs=1)
        figures.llm = await llm_runs(seed_ask(app), fake, opts.llm_runs)
    await llm.client.close()
    return figures


# --- Jipsa ---------------------------------------------------------------------------------------------


class JipsaSession:
    """One person at the page: a session, its WebSocket, one question at a time."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self.socket: websockets.ClientConnection | None = None
        self.answered: set[str] = set()

    async def open(self) -> JipsaSession:
        async with httpx.AsyncClient(base_url=self.gateway.http_url, timeout=30) as http:
            session = (await http.post("/api/sessions")).raise_for_status().json()
        self.socket = await websockets.connect(
            self.gateway.socket_url(session["session_id"], session["token"]), max_queue=None
        )
        greeting = json.loads(await self.socket.recv())
        assert greeting["type"] == "connected", greeting
        return self

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()

    async def ask(self, query: str) -> Timed:
        assert self.socket is not None
        began = time.perf_counter()
        await self.socket.send(json.dumps({"type": "query", "query": query}))
        run_id, asked = None, set[str]()
        async with asyncio.timeout(RUN_TIMEOUT_S):
            async for raw in self.socket:
                message = json.loads(raw)
                if message["type"] == "error":
                    raise RuntimeError(f"the gateway refused a run: {message}")
                if message["type"] == "planning_start" and run_id is None:
                    if message["run_id"] not in self.answered:
                        run_id = message["run_id"]
                if message.get("run_id") != run_id:
                    continue
                if message["type"] == "input_request":
                    if message["step_id"] in asked:
                        # The step asks again after its answer: the run waits for ever. Timed to here,
                        # cancelled, and flagged in the table rather than hidden.
                        await self.socket.send(json.dumps({"type": "cancel", "run_id": run_id}))
                        self.answered.add(run_id)
                        return Timed(
                            time.perf_counter() - began, run_id=run_id, inputs_asked=len(asked), stuck=True
                        )
                    asked.add(message["step_id"])
                    await self.socket.send(json.dumps(input_response(message)))
                if message["type"] == "final_response":
                    self.answered.add(run_id)
                    return Timed(time.perf_counter() - began, run_id=run_id, inputs_asked=len(asked))
        raise RuntimeError("the socket closed before the answer")


def input_response(request: dict[str, Any]) -> dict[str, Any]:
    """A person who knows the figures answers at once; the seed invented them instead of asking."""
    answers = {q["field"]: answer_for(q) for q in request["questions"]}
    return {
        "type": "input_response",
        "run_id": request["run_id"],
        "step_id": request["step_id"],
        "answers": answers,
    }


def answer_for(question: dict[str, Any]) -> str:
    if question["field"] in FIGURES:
        return FIGURES[question["field"]]
    example = re.search(r"예:\s*(.+)", question.get("hint") or "")
    if example is None:
        raise RuntimeError(f"no answer for {question}: add it to FIGURES")
    return example[1].strip()


@contextlib.asynccontextmanager
async def sessions(gateway: Gateway, count: int) -> AsyncIterator[list[JipsaSession]]:
    opened = [await JipsaSession(gateway).open() for _ in range(count)]
    try:
        yield opened
    finally:
        await asyncio.gather(*(s.close() for s in opened))


async def with_team_work(store: EventStore, timed: list[Timed]) -> list[Timed]:
    """Each run with its critical-path team time, read from the run's events in the store."""
    out = []
    for t in timed:
        events = [r.envelope for r in await store.read_correlation(t.run_id)]
        plan = next(e.data for e in events if e.event_type == "PlanReady")
        took: dict[str, float] = {}
        for e in events:  # a step that asked the person runs again: every attempt is on the path
            if e.event_type in ("StepCompleted", "StepFailed"):
                took[e.data["step_id"]] = took.get(e.data["step_id"], 0.0) + e.data["duration_ms"] / 1000
        after = {s["step_id"]: s.get("depends_on", []) for s in plan["steps"]}
        out.append(replace(t, team_work_s=critical_path(took, after)))
    return out


def critical_path(took: dict[str, float], after: dict[str, list[str]]) -> float:
    """The longest chain of step durations through `depends_on`: what no concurrency can hide."""
    longest: dict[str, float] = {}

    def chain(step: str) -> float:
        if step not in longest:
            longest[step] = took.get(step, 0.0) + max((chain(d) for d in after.get(step, [])), default=0.0)
        return longest[step]

    return max((chain(step) for step in after), default=0.0)


@contextlib.asynccontextmanager
async def jipsa_system(urls: ServerUrls, scratch: Path, llm_url: str | None = None) -> AsyncIterator[Any]:
    """Jipsa's services over a fresh migrated database and a namespace of their own (as tests/conftest.py
    builds them); with `llm_url`, the planner and supervisor call that endpoint (they read it at start)."""
    name = f"jipsa_cmp_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(urls.database_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = urls.database_url.rsplit("/", 1)[0] + f"/{name}"
    try:
        await asyncio.to_thread(migrate, url)
        infra = InfraSettings(
            DATABASE_URL=url,
            NATS_URL=urls.nats_url,
            JIPSA_NAMESPACE=f"c{uuid.uuid4().hex[:10]}",
            JIPSA_DATA_DIR=scratch / name,
        )
        infra.data_dir.mkdir(parents=True, exist_ok=True)
        pool = await open_pool(url)
        try:
            with environment(OPENAI_BASE_URL=llm_url, OPENAI_API_KEY="bench" if llm_url else None):
                # One client asking as fast as it can from one address: the per-person limits do not apply.
                unlimited = {"queries_per_minute": 0, "sessions_per_minute": 0}
                async with jipsa(EventStore(pool), infra, **unlimited) as gateway:
                    yield gateway, EventStore(pool)
        finally:
            await pool.close()
    finally:
        with psycopg.connect(urls.database_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def environment(**values: str | None) -> Iterator[None]:
    """Variables set (None: unset) for the block: the services read their LLM settings when they start."""
    before = {key: os.environ.get(key) for key in values}
    try:
        _set_environment(values)
        yield
    finally:
        _set_environment(before)


def _set_environment(values: dict[str, str | None]) -> None:
    for key, value in values.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


async def measure_jipsa(
    urls: ServerUrls, scratch: Path, opts: argparse.Namespace, fake: FakeOpenAI
) -> Figures:
    figures = Figures()
    async with jipsa_system(urls, scratch) as (gateway, store):
        heap.settle()  # as each of the services' processes does once it is built
        async with sessions(gateway, opts.concurrency) as people:
            await warm_up(people[0].ask)
            greeting, _ = await sequential(people[0].ask, GREETING, opts.runs)
            several, figures.throughput[1] = await sequential(people[0].ask, SEVERAL, opts.runs)
            asks: list[Ask] = [p.ask for p in people]
            meter = Meter.of(
                {"Jipsa (every service + client)": os.getpid()}, urls.database_url, urls.nats_url
            )
            with meter.measuring() as figures.cpu:
                figures.throughput[opts.concurrency] = await concurrent(asks, SEVERAL, opts.concurrent_runs)
        figures.latency["greeting"] = await with_team_work(store, greeting)
        figures.latency["several"] = await with_team_work(store, several)
        figures.notes.append(await rebuilt(store))
    async with jipsa_system(urls, scratch, fake.base_url) as (gateway, store):
        heap.settle()

        async def fresh_session_ask(query: str) -> Timed:
            # A new session per question: in one session a repeated question is a follow-up, which the
            # planner answers by rules without the model.
            async with sessions(gateway, 1) as (person,):
                fake.set_default(planning_reply(query, opts.llm_delay_ms / 1000), call_point="planning")
                return await person.ask(query)

        await warm_up(fresh_session_ask, runs=1)
        figures.llm = await llm_runs(fresh_session_ask, fake, opts.llm_runs)
        modes = {m for runs in figures.llm.values() for t in runs for m in await plan_modes(store, t.run_id)}
        figures.notes.append(f"Jipsa planner modes in the LLM runs: {', '.join(sorted(modes))}")
    return figures


async def rebuilt(store: EventStore) -> str:
    """The projections folded again from this bench's own runs (`jipsa projections rebuild`): the backbone
    bench's rebuild row folds small events, and a real run's step results and answer are 12-31 kB each."""
    runs = len(await read_rows(store.pool, "SELECT run_id FROM final_states", ()))
    started = time.perf_counter()
    events = await Projector(store).rebuild()
    seconds = time.perf_counter() - started
    rate = events / seconds
    return f"Jipsa's projections rebuilt from this bench's {runs} runs: {events} events at {rate:,.0f}/s"


async def plan_modes(store: EventStore, run_id: str) -> list[str]:
    return [
        r.envelope.data["mode"]
        for r in await store.read_correlation(run_id)
        if r.envelope.event_type == "PlanReady"
    ]


def planning_reply(query: str, delay_s: float = 0.0) -> Reply:
    """What a good model would answer Jipsa's `planning` call: the rules' own plan, so both modes agree."""
    plan = plan_by_rules(query)
    intent: Intent = plan.intent
    answer = {
        "intent": intent.type.value,
        "confidence": 0.9,
        "keywords": intent.keywords[:10],
        "steps": [
            {
                "id": s.step_id,
                "team": s.team.value,
                "task": s.task,
                "focus": s.inputs.get("focus", []),
                "depends_on": s.depends_on,
            }
            for s in plan.steps
        ],
    }
    return Reply.json(PlanningAnswer.model_validate(answer).model_dump(mode="json"), delay_s=delay_s)


# --- the fake model ------------------------------------------------------------------------------------


def script_fake(fake: FakeOpenAI, delay_s: float) -> None:
    for call_point, answer in SEED_REPLIES.items():
        fake.set_default(Reply.json(answer, delay_s=delay_s), call_point=call_point)
    fake.set_default(Reply.text(SYNTHESIS_TEXT, delay_s=delay_s), call_point="response_synthesis")


async def llm_runs(ask: Ask, fake: FakeOpenAI, runs: int) -> dict[str, list[Timed]]:
    """Each seed question `runs` times, one at a time, with the calls the fake server got during each."""
    out: dict[str, list[Timed]] = {}
    for query in SEED_QUERIES:
        for _ in range(runs):
            before = len(fake.requests)
            timed = await ask(query)
            calls = tuple(r.call_point or "?" for r in fake.requests[before:])
            out.setdefault(query, []).append(replace(timed, llm_calls=calls))
    return out


# --- the table -----------------------------------------------------------------------------------------


def percentile(values: list[float], p: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1] if len(values) > 1 else values[0]


def machine() -> str:
    with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        model = next(
            (line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), "?"
        )
    cores = len(os.sched_getaffinity(0))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{cores} cores (nproc), {model}, Python {platform.python_version()}, load average {load}"


def row(name: str, seed: float, ours: float, unit: str, seed_extra: str = "", ours_extra: str = "") -> None:
    ratio = f"{ours / seed:8.2f}x" if seed else "       -"
    print(f"  {name:<44} {seed:>10.2f}{seed_extra:<5} {ours:>10.2f}{ours_extra:<5} {unit:<7} {ratio}")


def report(seed: Figures, ours: Figures, opts: argparse.Namespace, servers: str) -> None:
    print(f"\nJipsa vs the seed's LangGraph design; machine: {machine()}; servers: {servers}")
    print(f"  {'':<44} {'LangGraph':>15} {'Jipsa':>15} {'':<7} Jipsa/LangGraph")
    print(f"Rules mode, one run at a time ({opts.runs} runs per row)")
    for path, label in (("greeting", "'안녕' (no team)"), ("several", "'강남구…' (search -> analysis)")):
        for p in (50, 99):
            seed_ms, ours_ms = (
                percentile([t.seconds * 1000 for t in x], p) for x in (seed.latency[path], ours.latency[path])
            )
            row(f"{label} end to end p{p}", seed_ms, ours_ms, "ms")
        if path == "several":
            for p in (50, 99):
                seed_ms, ours_ms = (
                    percentile([t.overhead_s * 1000 for t in x], p)
                    for x in (seed.latency[path], ours.latency[path])
                )
                row(f"{label} minus team work p{p}", seed_ms, ours_ms, "ms")
            team = statistics.median(t.team_work_s * 1000 for t in ours.latency[path])
            ours.notes.append(f"Jipsa's real team work on the '강남구…' critical path: median {team:.1f} ms")
    print(f"Throughput, '강남구…' ({opts.concurrent_runs} runs at {opts.concurrency} concurrent)")
    for c in sorted(seed.throughput):
        row(f"{c} concurrent", seed.throughput[c], ours.throughput[c], "runs/s")
    print(
        f"CPU per run over the {opts.concurrency}-concurrent batch"
        " (/proc/<pid>/stat; Jipsa's services share one process here, `make load` splits them)"
    )
    for side in (seed, ours):
        for line in per_run_lines(side.cpu, opts.concurrent_runs):
            print(line)
    print(
        f"Fake LLM answering after {opts.llm_delay_ms} ms: end to end, median of {opts.llm_runs} [LLM calls]"
    )
    for query in SEED_QUERIES:
        s, o = seed.llm[query], ours.llm[query]
        s_calls, o_calls = len(s[-1].llm_calls), len(o[-1].llm_calls)
        row(
            f"'{query}'",
            statistics.median(t.seconds for t in s),
            statistics.median(t.seconds for t in o),
            "s",
            f" [{s_calls}]",
            f" [{o_calls}]",
        )
    for query in SEED_QUERIES:
        print(f"  calls for '{query}': LangGraph {list(seed.llm[query][-1].llm_calls)}")
        print(f"  {'':<{len(query) + 13}}Jipsa {list(ours.llm[query][-1].llm_calls)}")
    asked = {
        label: statistics.median(t.inputs_asked for t in runs)
        for label, runs in [*ours.latency.items(), *ours.llm.items()]
        if any(t.inputs_asked for t in runs)
    }
    for label, count in asked.items():
        ours.notes.append(
            f"Jipsa asked for figures on '{label}' ({count:g} input round trip, answered at once)"
        )
    for note in seed.notes + ours.notes:
        print(f"  {note}")


# --- entry ---------------------------------------------------------------------------------------------


def options(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.compare", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="sequential runs per latency row (default 30)")
    parser.add_argument("--concurrency", type=int, default=50, help="concurrent runs (default 50)")
    parser.add_argument(
        "--concurrent-runs",
        type=int,
        default=None,
        help="runs in the concurrent batch (default 2 x concurrency)",
    )
    parser.add_argument("--llm-delay-ms", type=int, default=200, help="the fake model's delay (default 200)")
    parser.add_argument(
        "--llm-runs", type=int, default=3, help="runs of each question with the model (default 3)"
    )
    parser.add_argument(
        "--all-seed-calls",
        action="store_true",
        help="the seed's every call on these paths (+query_decomposition, market_insight, insight_synthesis)",
    )
    opts = parser.parse_args(argv)
    opts.concurrent_runs = opts.concurrent_runs or 2 * opts.concurrency
    return opts


async def bench(urls: ServerUrls, scratch: Path, opts: argparse.Namespace) -> None:
    with FakeOpenAI().serve() as fake:
        script_fake(fake, opts.llm_delay_ms / 1000)
        seed = await measure_seed(scratch, opts, fake)
        ours = await measure_jipsa(urls, scratch, opts, fake)
    report(seed, ours, opts, urls.source)


def main(argv: list[str] | None = None) -> None:
    opts = options(argv)
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch, real_servers(Path(scratch)) as urls:
        # Both sides on the loop Jipsa's services run on (services/platform/loop.py).
        loop.run(bench(urls, Path(scratch), opts))
    print(f"\n(took {time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    main()
