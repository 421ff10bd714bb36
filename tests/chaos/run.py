"""Chaos: runs through the real system while services are SIGKILLed and the servers restarted or wiped.

    python -m tests.chaos.run [--runs 200] [--seed S] [--sessions 6] [--every 2 8]

The system runs as `make run` runs it (tests/chaos/system.py: embedded NATS and Postgres of its own,
every service a separate process under procman's Supervisor). Once it answers, `--sessions` people ask
a mixed set of questions over the gateway's WebSocket, one at a time each, until `--runs` were asked;
meanwhile, every `--every` seconds (uniform between the two bounds), one fault from:

- kill:      SIGKILL a random service process (procman starts it again after its backoff);
- postgres:  restart Postgres (fast shutdown, or SIGKILL: a crash it recovers from), a few seconds down;
- nats:      stop NATS, wipe its storage (streams, consumers, de-duplication state), start it again;
             the publisher re-feeds the stream from the store.

After the last answer the faults stop, and the store is the judge (everything is counted there, not in
what the clients saw):

- every run (every QueryReceived) reached one final event (ResponseReady, RunFailed, RunCancelled or
  PlanRejected) within `--settle` seconds of the end: a run stuck for longer is a failure;
- no step's effect happened twice: StepStarted, StepCompleted and StepFailed each at most once per
  (run, step, attempt), and at most one ResponseReady per run;
- no event is missing from the projections: once the projector's checkpoint reaches the head, every run
  has a `final_states` and a `todos` row whose last_position is the position of the run's last event;
- interrupted runs resumed: a run that was in flight when a fault struck is counted and must be final.

Prints every fault with its time, then the figures; exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import psycopg
from psycopg.rows import dict_row

from tests.chaos.client import RunTiming, SessionClient
from tests.chaos.system import System, running_system

# A mixed set: greeting (no team), legal (search), market + analysis (search then analysis), rent increase
# (analysis of the 5% cap). Not a contract: that run waits for the person's answers.
QUESTIONS = [
    "안녕하세요",
    "전세금 인상기준은?",
    "계약갱신요구권은 몇 번까지 쓸 수 있나요?",
    "전세 보증금을 돌려받지 못하면 어떻게 해야 하나요?",
    "강남구 아파트 전세 시세와 위험도 분석해줘",
    "마포구 아파트 매매 시세 알려주고 분석해줘",
    "전세금 3억인데 3억 5천으로 올려달래요",
    "월세 50만원인데 60만원으로 올려달라고 해요",
]
FINAL_EVENTS = ("ResponseReady", "RunFailed", "RunCancelled", "PlanRejected")
KINDS = ("kill", "postgres", "nats")
START_TIMEOUT_S = 240.0  # the search service seeds and loads its index at start: tens of seconds here


@dataclass
class Fault:
    at: float  # seconds since the chaos began
    wall: float  # time.time() when it began, to compare with the store's recorded_at
    kind: str
    what: str
    took: float = 0.0


@dataclass
class Chaos:
    system: System
    rng: random.Random
    every: tuple[float, float]
    began: float = field(default_factory=time.monotonic)
    faults: list[Fault] = field(default_factory=list)

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.rng.uniform(*self.every))
                return
            kind = self._next_kind()
            fault = Fault(time.monotonic() - self.began, time.time(), kind, "")
            started = time.monotonic()
            fault.what = await getattr(self, kind)()
            fault.took = time.monotonic() - started
            self.faults.append(fault)
            print(f"  t={fault.at:7.1f}s  {kind:<8} {fault.what} ({fault.took:.1f}s)", flush=True)

    def _next_kind(self) -> str:
        """Each kind once first (in random order), so a short run sees them all; then mostly kills."""
        if len(self.faults) < len(KINDS):
            unused = [k for k in KINDS if k not in {f.kind for f in self.faults}]
            return self.rng.choice(unused)
        return self.rng.choices(KINDS, weights=[6, 2, 2])[0]

    async def kill(self) -> str:
        services = sorted(self.system.service_pids())
        if not services:
            return "no service process up (all restarting)"
        tag = self.rng.choice(services)
        pid = self.system.kill_service(tag)
        return f"SIGKILL {tag} (pid {pid})"

    async def postgres(self) -> str:
        crash = self.rng.random() < 0.5
        down = self.rng.uniform(0.5, 3.0)
        await asyncio.to_thread(self.system.postgres.stop, kill=crash)
        await asyncio.sleep(down)
        await asyncio.to_thread(self.system.postgres.start)
        return (
            f"Postgres {'killed (crash recovery)' if crash else 'stopped (fast shutdown)'}, down {down:.1f}s"
        )

    async def nats(self) -> str:
        down = self.rng.uniform(0.5, 3.0)
        await asyncio.to_thread(self.system.nats.stop, kill=self.rng.random() < 0.5)
        self.system.nats.wipe()
        await asyncio.sleep(down)
        await asyncio.to_thread(self.system.nats.start)
        return f"NATS stopped, storage wiped, down {down:.1f}s, started empty"


async def ask_all(
    system: System, questions: list[str], sessions: int, run_timeout: float, more: Callable[[], bool]
) -> list[RunTiming]:
    """Every question asked, `sessions` people at once; then more of them while `more()` says so (a short
    run goes on until each kind of fault struck)."""
    queue = list(reversed(questions))
    timings: list[RunTiming] = []

    async def person() -> None:
        client = SessionClient(system.http_url, system.ws_url)
        await client.open(timeout=run_timeout)
        try:
            while queue or more():
                query = queue.pop() if queue else questions[len(timings) % len(questions)]
                timings.append(await client.ask(query, run_timeout))
        finally:
            await client.close()

    await asyncio.gather(*(person() for _ in range(sessions)))
    return timings


async def warm_up(system: System) -> float:
    """Healthy, and one legal question answered end to end (the search service is up and indexed)."""
    began = time.monotonic()
    await system.wait_healthy(START_TIMEOUT_S)
    client = SessionClient(system.http_url, system.ws_url)
    await client.open()
    try:
        timing = await client.ask(QUESTIONS[1], START_TIMEOUT_S)
    finally:
        await client.close()
    if timing.final is None:
        raise TimeoutError(f"the first question was not answered (see {system.root}/services.log)")
    return time.monotonic() - began


# ---- the store is the judge ------------------------------------------------------------------------


async def fetch(conn: psycopg.AsyncConnection, sql: str, *args) -> list[dict]:
    return await (await conn.execute(sql, args)).fetchall()


async def store_settled(database_url: str) -> tuple[int, int, int]:
    """(runs, runs with a final event, projector lag in positions)."""
    async with await psycopg.AsyncConnection.connect(database_url, row_factory=dict_row) as conn:
        runs = await fetch(
            conn,
            "SELECT count(DISTINCT correlation_id) AS n FROM events WHERE event_type = 'QueryReceived'",
        )
        final = await fetch(
            conn,
            "SELECT count(DISTINCT correlation_id) AS n FROM events WHERE event_type = ANY(%s)",
            list(FINAL_EVENTS),
        )
        lag = await fetch(
            conn,
            "SELECT (SELECT coalesce(max(position), 0) FROM events)"
            " - (SELECT position FROM checkpoints WHERE name = 'projections') AS n",
        )
    return runs[0]["n"], final[0]["n"], lag[0]["n"]


async def wait_settled(database_url: str, timeout: float) -> tuple[int, int, int]:
    deadline, last = time.monotonic() + timeout, (0, 0, -1)
    while time.monotonic() < deadline:
        with contextlib.suppress(psycopg.OperationalError):
            last = await store_settled(database_url)
            if last[0] == last[1] and last[2] == 0:
                return last
        await asyncio.sleep(1)
    return last


DUPLICATES = """
    SELECT event_type, correlation_id, data->>'step_id' AS step_id, data->>'attempt' AS attempt, count(*) AS n
    FROM events WHERE event_type IN ('StepStarted', 'StepCompleted', 'StepFailed')
    GROUP BY 1, 2, 3, 4 HAVING count(*) > 1
"""
RUNS = """
    SELECT e.correlation_id AS run_id, max(e.position) AS last_position,
           min(e.recorded_at) AS began, max(e.recorded_at) FILTER (WHERE e.event_type = ANY(%s)) AS ended,
           count(*) FILTER (WHERE e.event_type = ANY(%s)) AS finals,
           count(*) FILTER (WHERE e.event_type = 'ResponseReady') AS responses,
           string_agg(e.event_type, ',') FILTER (WHERE e.event_type = ANY(%s)) AS outcome,
           count(*) FILTER (WHERE e.event_type IN ('StepRetried', 'StepTimedOut')) AS retries,
           f.last_position AS final_state_at, t.last_position AS todo_at
    FROM events e
    LEFT JOIN final_states f ON f.run_id = e.correlation_id
    LEFT JOIN todos t ON t.run_id = e.correlation_id
    WHERE e.correlation_id IN (SELECT correlation_id FROM events WHERE event_type = 'QueryReceived')
    GROUP BY e.correlation_id, f.last_position, t.last_position
"""


@dataclass
class Verdict:
    violations: list[str] = field(default_factory=list)
    figures: dict[str, object] = field(default_factory=dict)

    def violated(self, what: str, examples: list) -> None:
        if examples:
            self.violations.append(f"{what}: {len(examples)} (e.g. {examples[:3]})")


async def judge(database_url: str, faults: list[Fault]) -> Verdict:
    verdict = Verdict()
    finals = list(FINAL_EVENTS)
    async with await psycopg.AsyncConnection.connect(database_url, row_factory=dict_row) as conn:
        runs = await fetch(conn, RUNS, finals, finals, finals)
        duplicates = await fetch(conn, DUPLICATES)
        parked = await fetch(conn, "SELECT consumer, subject, error FROM dead_letters")
    verdict.violated("runs with no final event", [r["run_id"] for r in runs if r["finals"] == 0])
    verdict.violated("runs with more than one final event", [r["run_id"] for r in runs if r["finals"] > 1])
    verdict.violated("runs answered twice", [r["run_id"] for r in runs if r["responses"] > 1])
    verdict.violated("step effects twice", [tuple(d.values()) for d in duplicates])
    verdict.violated(
        "runs missing from / behind in final_states",
        [r["run_id"] for r in runs if r["final_state_at"] != r["last_position"]],
    )
    verdict.violated(
        "runs missing from / behind in todos",
        [r["run_id"] for r in runs if r["todo_at"] != r["last_position"]],
    )
    interrupted = [r for r in runs if _interrupted(r, faults)]
    verdict.violated(
        "interrupted runs that did not finish", [r["run_id"] for r in interrupted if not r["finals"]]
    )
    durations = [(r["ended"] - r["began"]).total_seconds() for r in runs if r["ended"]]
    verdict.figures.update(
        runs_in_store=len(runs),
        outcomes=dict(Counter(r["outcome"] or "none" for r in runs)),
        interrupted_runs=len(interrupted),
        interrupted_outcomes=dict(Counter(r["outcome"] or "none" for r in interrupted)),
        runs_with_retries_or_timeouts=sum(r["retries"] > 0 for r in runs),
        store_run_time_p50_p95_max=_quantiles(durations),
        dead_letters=len(parked),
    )
    if parked:
        verdict.figures["dead_letter_examples"] = [
            f"{p['consumer']} {p['subject']}: {p['error'][:80]}" for p in parked[:3]
        ]
    return verdict


def _interrupted(run: dict, faults: list[Fault]) -> bool:
    began = run["began"].timestamp()
    ended = run["ended"].timestamp() if run["ended"] else float("inf")
    return any(began <= f.wall <= ended for f in faults)


def _quantiles(values: list[float]) -> str:
    if not values:
        return "-"
    values = sorted(values)
    q = statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1 else values * 99
    return f"{q[49]:.2f}s / {q[94]:.2f}s / {values[-1]:.2f}s"


# ---- the script --------------------------------------------------------------------------------------


async def chaos(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    questions = [rng.choice(QUESTIONS) for _ in range(args.runs)]
    print(
        f"chaos: {args.runs} runs, {args.sessions} sessions, "
        f"a fault every {args.every[0]:g}-{args.every[1]:g}s, seed {args.seed}"
    )
    async with running_system(keep=args.keep) as system:
        print(f"  system under {system.root}; waiting for it to answer", flush=True)
        ready = await warm_up(system)
        print(f"  ready after {ready:.1f}s (healthy and a first question answered)", flush=True)
        restarts_before = system.supervisor.restarts
        injector, stop = Chaos(system, rng, tuple(args.every)), asyncio.Event()
        chaos_task = asyncio.create_task(injector.run(stop))
        began = time.monotonic()
        try:
            timings = await ask_all(
                system,
                questions,
                args.sessions,
                args.run_timeout,
                lambda: len(injector.faults) < args.min_faults,
            )
        finally:
            stop.set()
            await chaos_task
        asked_for = time.monotonic() - began
        print(
            f"  every question asked and followed in {asked_for:.1f}s; faults stop, the store settles",
            flush=True,
        )
        settled = await wait_settled(system.database_url, args.settle)
        verdict = await judge(system.database_url, injector.faults)
        if settled[0] != settled[1] or settled[2] != 0:
            verdict.violations.append(
                f"not settled within {args.settle:g}s: {settled[1]}/{settled[0]} runs final, "
                f"projector {settled[2]} positions behind"
            )
        _client_figures(verdict, timings, asked_for)
        verdict.figures["faults"] = dict(Counter(f.kind for f in injector.faults))
        verdict.figures["restarts_seen_by_procman"] = system.supervisor.restarts - restarts_before
        _report(verdict)
        if verdict.violations:
            print(f"  logs kept? {'yes, ' + str(system.root) if args.keep else 'no (use --keep)'}")
    return 1 if verdict.violations else 0


def _client_figures(verdict: Verdict, timings: list[RunTiming], took: float) -> None:
    answered = [t.final for t in timings if t.final is not None]
    unanswered = [t.query for t in timings if t.final is None]
    verdict.violated("questions not answered within the run timeout", unanswered)
    verdict.figures.update(
        questions_asked=len(timings),
        duration_s=round(took, 1),
        client_run_time_p50_p95_max=_quantiles(answered),
        answer_types=dict(Counter(t.final_type for t in timings)),
        socket_reconnects=sum(t.reconnects for t in timings),
        questions_sent_again=sum(t.resent for t in timings),
        runs_that_asked_for_input_cancelled=sum(t.input_requested for t in timings),
    )


def _report(verdict: Verdict) -> None:
    print("figures:")
    for name, value in verdict.figures.items():
        print(f"  {name:<36} {value}")
    if verdict.violations:
        print("VIOLATIONS:")
        for violation in verdict.violations:
            print(f"  - {violation}")
    else:
        print("no violation")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.chaos.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--sessions", type=int, default=6, help="people asking at once")
    parser.add_argument("--every", type=float, nargs=2, default=(2.0, 8.0), metavar=("MIN", "MAX"))
    parser.add_argument("--min-faults", type=int, default=3, help="keep asking until this many struck")
    parser.add_argument("--run-timeout", type=float, default=240.0, help="seconds a question may take")
    parser.add_argument("--settle", type=float, default=180.0, help="seconds for the store to settle")
    parser.add_argument("--keep", action="store_true", help="keep the servers' folder and services.log")
    args = parser.parse_args(argv)
    if args.seed is None:
        args.seed = random.randrange(10**6)
    return args


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(chaos(parse(argv)))


if __name__ == "__main__":
    sys.exit(main())
