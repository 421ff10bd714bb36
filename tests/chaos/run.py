"""Chaos: runs through the real system while services are SIGKILLed and the servers restarted or wiped.

    python -m tests.chaos.run [--runs 200] [--seed S] [--sessions 6] [--every 2 8]

The system runs as `make run` runs it (tests/chaos/system.py: embedded NATS and Postgres of its own,
every service a separate process under procman's Supervisor). Once it answers, `--sessions` people ask
a mixed set of questions over the gateway's WebSocket, one at a time each, until `--runs` were asked;
meanwhile, every `--every` seconds (uniform between the two bounds), one fault from:

- kill:      SIGKILL a random service process (procman starts it again after its backoff);
- postgres:  restart Postgres (fast shutdown, or SIGKILL: a crash it recovers from), a few seconds down;
- nats:      stop NATS, wipe its storage (streams, consumers, de-duplication state), start it again;
             the publisher re-feeds the stream from the store (the fault lasts until it has).

After the last answer the faults stop, and the store is the judge (everything is counted there, not in
what the clients saw). Every run (every QueryReceived) gets an outcome from its first final event
(tests/chaos/verdict.py: answer, guidance, answer with failed steps, error, failed, rejected, cancelled,
none), printed as a table with how many of each a fault touched. Violations (exit 1):

- a run with no final event within `--settle` seconds of the end, or one that ended in an error answer
  or a RunFailed: every fault here is one the system must survive and every question has an answer;
- a run whose final-state projection disagrees with its final event, or is missing or behind;
- a step's effect twice: StepStarted, StepCompleted and StepFailed each at most once per
  (run, step, attempt); more than one final event or ResponseReady per run;
- the projections not at the head once the projector's checkpoint reaches it.

Interrupted runs (a fault touched them: a step in flight on a killed process, an event recorded while
NATS was wiped and not yet re-fed, in flight during a Postgres restart) are counted with their outcomes.
Prints every fault with its time, then the tables and figures; every failing run is listed with its id,
its final event's cause and the faults that touched it (`jipsa audit RUN_ID` on a `--keep` folder shows
the whole timeline).
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

import nats
import psycopg
from psycopg.rows import dict_row

from services.platform.settings import InfraSettings
from tests.chaos import verdict as v
from tests.chaos.client import RunTiming, SessionClient
from tests.chaos.system import NAMESPACE, System, running_system

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
FINAL_EVENTS = v.FINAL_EVENTS
KINDS = ("kill", "postgres", "nats")
START_TIMEOUT_S = 240.0  # the search service seeds and loads its index at start: tens of seconds here
REFEED_TIMEOUT_S = 120.0
STREAM = InfraSettings(JIPSA_NAMESPACE=NAMESPACE).stream_name


@dataclass
class Fault:
    at: float  # seconds since the chaos began
    wall: float  # time.time() when it began, to compare with the store's recorded_at
    kind: str
    what: str
    took: float = 0.0
    service: str | None = None  # the killed process's service (kill)
    until: float | None = None  # time.time() when the system had it behind it (None: at once)

    def window(self) -> v.FaultWindow:
        ended = self.until if self.until is not None else self.wall
        label = f"{self.kind} t={self.at:.1f}s" + (f" ({self.service})" if self.service else "")
        return v.FaultWindow(self.kind, self.wall, ended, self.service, label)


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
            fault.what = await getattr(self, kind)(fault)
            fault.took = time.monotonic() - started
            self.faults.append(fault)
            print(f"  t={fault.at:7.1f}s  {kind:<8} {fault.what} ({fault.took:.1f}s)", flush=True)

    def _next_kind(self) -> str:
        """Each kind once first (in random order), so a short run sees them all; then mostly kills."""
        if len(self.faults) < len(KINDS):
            unused = [k for k in KINDS if k not in {f.kind for f in self.faults}]
            return self.rng.choice(unused)
        return self.rng.choices(KINDS, weights=[6, 2, 2])[0]

    async def kill(self, fault: Fault) -> str:
        services = sorted(self.system.service_pids())
        if not services:
            return "no service process up (all restarting)"
        tag = self.rng.choice(services)
        fault.wall = time.time()
        pid = self.system.kill_service(tag)
        fault.service = tag.split(".")[0]
        return f"SIGKILL {tag} (pid {pid})"

    async def postgres(self, fault: Fault) -> str:
        crash = self.rng.random() < 0.5
        down = self.rng.uniform(0.5, 3.0)
        await asyncio.to_thread(self.system.postgres.stop, kill=crash)
        await asyncio.sleep(down)
        await asyncio.to_thread(self.system.postgres.start)
        fault.until = time.time()
        return (
            f"Postgres {'killed (crash recovery)' if crash else 'stopped (fast shutdown)'}, down {down:.1f}s"
        )

    async def nats(self, fault: Fault) -> str:
        down = self.rng.uniform(0.5, 3.0)
        await asyncio.to_thread(self.system.nats.stop, kill=self.rng.random() < 0.5)
        self.system.nats.wipe()
        await asyncio.sleep(down)
        head = await self._store_count()
        await asyncio.to_thread(self.system.nats.start)
        refed = await self._refed(head, REFEED_TIMEOUT_S)
        fault.until = time.time()
        return f"NATS stopped, storage wiped, down {down:.1f}s, started empty; " + (
            f"{head} events re-fed after {refed:.1f}s"
            if refed is not None
            else f"re-feed of {head} events not seen within {REFEED_TIMEOUT_S:g}s"
        )

    async def _store_count(self) -> int:
        """How many events the store holds now (the re-fed stream must hold as many)."""
        async with await psycopg.AsyncConnection.connect(self.system.database_url) as conn:
            row = await (await conn.execute("SELECT count(*) FROM events")).fetchone()
        return row[0]

    async def _refed(self, count: int, timeout: float) -> float | None:
        """Seconds until the new stream's last sequence reaches `count`: the relay re-feeds the store in
        position order into a stream that came back empty, so by then every event recorded before NATS
        returned is on the bus again (None when not within `timeout`)."""
        began = time.monotonic()
        while time.monotonic() - began < timeout:
            with contextlib.suppress(Exception):  # NATS not answering yet, or the stream not made yet
                nc = await nats.connect(self.system.nats.url, allow_reconnect=False, connect_timeout=2)
                try:
                    info = await nc.jetstream().stream_info(STREAM)
                finally:
                    await nc.close()
                if info.state.last_seq >= count:
                    return time.monotonic() - began
            await asyncio.sleep(0.2)
        return None


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
RUN_EVENTS = """
    SELECT e.correlation_id AS run_id, e.position, e.event_type,
           extract(epoch FROM e.recorded_at)::float8 AS at,
           e.data->>'team' AS team, e.data->>'step_id' AS step_id, (e.data->>'attempt')::int AS attempt,
           e.data->>'response_type' AS response_type,
           CASE WHEN e.event_type = 'ResponseReady' THEN e.data->'failed_steps' END AS failed_steps,
           CASE WHEN e.event_type = 'QueryReceived' THEN e.data->>'query' END AS query,
           CASE e.event_type
               WHEN 'StepFailed' THEN CASE jsonb_typeof(e.data->'error')
                   WHEN 'object' THEN concat(e.data->'error'->>'code', ': ', e.data->'error'->>'message')
                   ELSE e.data->>'error' END
               WHEN 'RunFailed' THEN concat(e.data->>'code', ': ', e.data->>'reason')
               WHEN 'StepTimedOut' THEN concat('timed out after ', e.data->>'timeout_s', ' s')
           END AS error
    FROM events e
    WHERE e.correlation_id IN (SELECT correlation_id FROM events WHERE event_type = 'QueryReceived')
    ORDER BY e.position
"""
MAX_LISTED = 40  # failing runs listed one a line; the rest counted


@dataclass
class JudgedRun:
    run_id: str
    query: str | None
    events: list[v.RunEvent]
    outcome: str
    touched: list[v.FaultWindow]
    status: str | None  # final_states.status
    final_state_at: int | None
    todo_at: int | None

    @property
    def last_position(self) -> int:
        return self.events[-1].position

    def finals(self, *types: str) -> int:
        return sum(e.type in (types or v.FINAL_EVENTS) for e in self.events)

    def cause(self) -> str:
        """What the store says ended (or stopped) the run, for the list of failing runs."""
        final = v.final_event(self.events)
        if final is None:
            last = self.events[-1]
            return f"no final event; last {last.type} (position {last.position})"
        if final.type == "RunFailed":
            return f"RunFailed {final.error}"
        failed = {e.step_id: e.error for e in self.events if e.error and e.type != "RunFailed"}
        steps = "; ".join(f"{step}: {error}" for step, error in failed.items())
        return f"{final.type} {final.response_type} failed_steps={list(final.failed_steps)} {steps}".strip()

    def describe(self) -> str:
        touched = ", ".join(f.label for f in self.touched) or "no fault touched it"
        return f"{self.run_id} [{self.outcome}] {self.query!r}: {self.cause()}; {touched}"


@dataclass
class Verdict:
    violations: list[str] = field(default_factory=list)
    figures: dict[str, object] = field(default_factory=dict)
    tables: list[str] = field(default_factory=list)
    failing: list[str] = field(default_factory=list)

    def violated(self, what: str, examples: list) -> None:
        if examples:
            self.violations.append(f"{what}: {len(examples)} (e.g. {examples[:3]})")


def _run_event(row: dict) -> v.RunEvent:
    return v.RunEvent(
        position=row["position"],
        type=row["event_type"],
        at=row["at"],
        team=row["team"],
        step_id=row["step_id"],
        attempt=row["attempt"],
        response_type=row["response_type"],
        failed_steps=tuple(row["failed_steps"] or ()),
        error=row["error"],
    )


async def judged_runs(conn: psycopg.AsyncConnection, faults: list[Fault]) -> list[JudgedRun]:
    """Every run of the store with its outcome, the faults that touched it and its projected rows."""
    events: dict[str, list[v.RunEvent]] = {}
    queries: dict[str, str] = {}
    for row in await fetch(conn, RUN_EVENTS):
        events.setdefault(row["run_id"], []).append(_run_event(row))
        if row["query"] is not None:
            queries[row["run_id"]] = row["query"]
    states = {
        r["run_id"]: r for r in await fetch(conn, "SELECT run_id, status, last_position FROM final_states")
    }
    todos = {
        r["run_id"]: r["last_position"] for r in await fetch(conn, "SELECT run_id, last_position FROM todos")
    }
    windows = [f.window() for f in faults]
    return [
        JudgedRun(
            run_id=run_id,
            query=queries.get(run_id),
            events=run_events,
            outcome=v.outcome_of(run_events),
            touched=v.touching(run_events, windows),
            status=states[run_id]["status"] if run_id in states else None,
            final_state_at=states[run_id]["last_position"] if run_id in states else None,
            todo_at=todos.get(run_id),
        )
        for run_id, run_events in events.items()
    ]


async def judge(database_url: str, faults: list[Fault]) -> Verdict:
    verdict = Verdict()
    async with await psycopg.AsyncConnection.connect(database_url, row_factory=dict_row) as conn:
        runs = await judged_runs(conn, faults)
        duplicates = await fetch(conn, DUPLICATES)
        parked = await fetch(conn, "SELECT consumer, subject, error FROM dead_letters")
    _judge_outcomes(verdict, runs)
    verdict.violated("runs with more than one final event", [r.run_id for r in runs if r.finals() > 1])
    verdict.violated("runs answered twice", [r.run_id for r in runs if r.finals("ResponseReady") > 1])
    verdict.violated("step effects twice", [tuple(d.values()) for d in duplicates])
    verdict.violated(
        "runs missing from / behind in final_states",
        [r.run_id for r in runs if r.final_state_at != r.last_position],
    )
    verdict.violated(
        "runs missing from / behind in todos", [r.run_id for r in runs if r.todo_at != r.last_position]
    )
    verdict.violated(
        "runs whose final_states status disagrees with their final event",
        [(r.run_id, r.outcome, r.status) for r in runs if not v.projection_agrees(r.outcome, r.status)],
    )
    durations = [final.at - r.events[0].at for r in runs if (final := v.final_event(r.events)) is not None]
    verdict.figures.update(
        runs_in_store=len(runs),
        runs_with_retries_or_timeouts=sum(
            any(e.type in ("StepRetried", "StepTimedOut") for e in r.events) for r in runs
        ),
        store_run_time_p50_p95_max=_quantiles(durations),
        dead_letters=len(parked),
    )
    if parked:
        verdict.figures["dead_letter_examples"] = [
            f"{p['consumer']} {p['subject']}: {p['error'][:80]}" for p in parked[:3]
        ]
    return verdict


_FAILURE_NAMES = {
    v.NONE: "runs with no final event",
    v.ERROR: "runs that ended in an error answer (every fault here is survivable)",
    v.FAILED: "runs that ended in RunFailed (every fault here is survivable)",
}


def _judge_outcomes(verdict: Verdict, runs: list[JudgedRun]) -> None:
    """The outcome table, the interrupted runs, and a violation for each failing outcome."""
    verdict.tables = outcome_table(runs)
    failing = [r for r in runs if r.outcome in v.FAILURES]
    for outcome in v.FAILURES:
        verdict.violated(_FAILURE_NAMES[outcome], [r.run_id for r in failing if r.outcome == outcome])
    partial = [r for r in runs if r.outcome == v.PARTIAL]
    verdict.failing = [r.describe() for r in [*failing, *partial]]


def outcome_table(runs: list[JudgedRun]) -> list[str]:
    by_outcome = Counter(r.outcome for r in runs)
    touched = Counter(r.outcome for r in runs if r.touched)
    interrupted = [r for r in runs if r.touched]
    lines = [
        "runs by outcome (the store's first final event of each run; a fault touched the interrupted):",
        f"  {'outcome':<26} {'runs':>6} {'interrupted':>12}",
        *(f"  {o:<26} {by_outcome[o]:>6} {touched[o]:>12}" for o in v.OUTCOMES),
        f"  {'total':<26} {len(runs):>6} {len(interrupted):>12}",
    ]
    answered = sum(r.outcome in v.ANSWERED for r in interrupted)
    partial = sum(r.outcome == v.PARTIAL for r in interrupted)
    kinds = Counter(kind for r in interrupted for kind in {f.kind for f in r.touched})
    services = Counter(f.service for r in interrupted for f in r.touched if f.kind == "kill")
    lines += [
        f"interrupted runs: {len(interrupted)}, ended with an answer: {answered}"
        f" (and {partial} with an answer with failed steps)",
        "  touched by: "
        + (", ".join(f"{k} {kinds[k]}" for k in KINDS) or "-")
        + " (runs; one run may be touched by several faults); kills by service: "
        + (", ".join(f"{s} {n}" for s, n in sorted(services.items())) or "-"),
    ]
    return lines


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
        outcomes_the_people_saw=dict(Counter(t.outcome for t in timings)),
        socket_reconnects=sum(t.reconnects for t in timings),
        questions_sent_again=sum(t.resent for t in timings),
        runs_that_asked_for_input_cancelled=sum(t.input_requested for t in timings),
    )


def _report(verdict: Verdict) -> None:
    for line in verdict.tables:
        print(line)
    if verdict.failing:
        print("failing runs and answers with failed steps (run id [outcome] question: cause; faults):")
        for line in verdict.failing[:MAX_LISTED]:
            print(f"  {line}")
        if len(verdict.failing) > MAX_LISTED:
            print(f"  … and {len(verdict.failing) - MAX_LISTED} more")
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
