"""Load: N people at once on the gateway's WebSocket, each asking several questions, against the real system.

    python -m tests.load.run [--sessions 50] [--questions 3] [--seed S]

The system is the one `make run` runs (tests/chaos/system.py: embedded NATS and Postgres, every service a
separate process under procman), in rules mode: what is measured is the real path of a run through the
gateway, the bus, the store and every service, not an in-process shortcut. Once it answered a first
question, `--sessions` people connect together and each asks `--questions` questions from the chaos
script's mixed set, one after another. Reported: runs per second, end-to-end latency (question sent to
`final_response`), time to `plan_ready`, to the first todo message (`execution_start`) and to the first
`todo_updated`, each as p50/p95/p99; the runs by outcome as each person got it (tests/chaos/verdict.py,
from the `final_response` frame and the run's last todo: answer, guidance, answer with failed steps,
error, none); errors (any outcome but a whole answer or guidance, so every partial or error answer and
every run without a final_response; error frames, dropped sockets, questions sent again, runs that
asked for input): must be 0, the exit code says so; and the memory of every service process (VmRSS at
the end and its peak VmHWM, from /proc/<pid>/status); and the CPU each process spent per run over the
load (from /proc/<pid>/stat; Postgres and NATS included), so the next hot spot is named by a number.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections import Counter

from tests.bench.cpu import Meter, per_run_lines
from tests.chaos.client import RunTiming, SessionClient
from tests.chaos.run import QUESTIONS, warm_up
from tests.chaos.system import System, running_system
from tests.chaos.verdict import ANSWERED, ERROR, NONE, PARTIAL

# What a person can get, as the final_response frame tells it (a cancelled or rejected run reads as a
# guidance there; a load run is neither).
FRAME_OUTCOMES = (*ANSWERED, PARTIAL, ERROR, NONE)


async def person(system: System, questions: list[str], run_timeout: float) -> list[RunTiming]:
    client = SessionClient(system.http_url, system.ws_url)
    await client.open(timeout=run_timeout)
    try:
        return [await client.ask(q, run_timeout) for q in questions]
    finally:
        await client.close()


def errors_of(timing: RunTiming) -> list[str]:
    found = list(timing.errors)
    outcome = timing.outcome
    if outcome == NONE:
        found.append("no final_response within the run timeout")
    elif outcome not in ANSWERED:
        failed = (timing.final_frame or {}).get("response", {}).get("data", {}).get("failed_steps")
        skipped = [s.get("step_id") for s in timing.todo_steps if s.get("status") == "skipped"]
        found.append(f"{outcome} (failed steps {failed or []}, skipped {skipped})")
    if timing.input_requested:
        found.append("the run asked for input")
    if timing.resent:
        found.append("the question had to be sent again")
    return found


def quantiles(values: list[float]) -> str:
    if not values:
        return "-"
    values = sorted(values)
    q = statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1 else values * 99
    return f"{q[49] * 1000:8.0f} {q[94] * 1000:8.0f} {q[98] * 1000:8.0f} {values[-1] * 1000:8.0f}"


async def load(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    plans = [[rng.choice(QUESTIONS) for _ in range(args.questions)] for _ in range(args.sessions)]
    print(f"load: {args.sessions} sessions x {args.questions} questions, rules mode, seed {args.seed}")
    async with running_system() as system:
        ready = await warm_up(system)
        print(f"  ready after {ready:.1f}s; idle memory taken", flush=True)
        idle = system.memory_kib()
        began = time.monotonic()
        with cpu_meter(system).measuring() as cpu:
            people = asyncio.gather(*(person(system, p, args.run_timeout) for p in plans))
            peak = await sample_memory(system, people)
        took = time.monotonic() - began
        timings = [t for ts in people.result() for t in ts]
        end = system.memory_kib()
    status = report(timings, took, idle, end, peak)
    print(f"CPU per run ({len(timings)} runs; /proc/<pid>/stat of each process, Postgres with its backends)")
    for line in per_run_lines(cpu, max(len(timings), 1)):
        print(line)
    return status


def cpu_meter(system: System) -> Meter:
    """Every service process, and the two servers with their children (Postgres's backends)."""
    servers = {"postgres": system.postgres.process, "nats": system.nats.process}
    return Meter(
        system.service_pids(),
        {name: process.pid for name, process in servers.items() if process is not None},
    )


async def sample_memory(system: System, work: asyncio.Future) -> dict[str, int]:
    """The largest VmRSS of each service seen while `work` runs (sampled every half second)."""
    peak: dict[str, int] = {}
    while not work.done():
        for tag, (rss, _) in system.memory_kib().items():
            peak[tag] = max(peak.get(tag, 0), rss)
        await asyncio.wait({work}, timeout=0.5)
    await work
    return peak


def report(
    timings: list[RunTiming], took: float, idle: dict, end: dict[str, tuple[int, int]], peak: dict[str, int]
) -> int:
    errors = [(t.run_id, t.query, e) for t in timings for e in errors_of(t)]
    answered = [t for t in timings if t.final is not None]
    print(f"runs: {len(timings)} in {took:.1f}s = {len(answered) / took:.2f} runs/s answered")
    print(f"  {'ms':<32} {'p50':>8} {'p95':>8} {'p99':>8} {'max':>8}")
    for name, values in (
        ("end to end (final_response)", [t.final for t in answered]),
        ("to plan_ready", [t.plan_ready for t in timings if t.plan_ready is not None]),
        ("to first todo (execution_start)", [t.first_todo for t in timings if t.first_todo is not None]),
        (
            "to first todo_updated",
            [t.first_todo_updated for t in timings if t.first_todo_updated is not None],
        ),
    ):
        print(f"  {name:<32} {quantiles(values)}   (n={len(values)})")
    for line in outcome_table(timings):
        print(line)
    print(f"errors: {len(errors)}")
    for run_id, query, error in errors[:10]:
        print(f"  - {run_id} {query}: {error}")
    print(f"  {'memory (MiB)':<14} {'idle':>7} {'peak':>7} {'end':>7} {'VmHWM':>7}")
    for tag in sorted(end):
        rss, hwm = end[tag]
        print(
            f"  {tag:<14} {idle.get(tag, (0, 0))[0] / 1024:7.1f} {peak.get(tag, 0) / 1024:7.1f} "
            f"{rss / 1024:7.1f} {hwm / 1024:7.1f}"
        )
    return 1 if errors or not timings else 0


def outcome_table(timings: list[RunTiming]) -> list[str]:
    by_outcome = Counter(t.outcome for t in timings)
    return [
        "runs by outcome (the final_response each person got, and the run's last todo):",
        *(f"  {o:<26} {by_outcome[o]:>6}" for o in FRAME_OUTCOMES),
        f"  {'total':<26} {len(timings):>6}",
        f"partial answers: {by_outcome[PARTIAL]}, error answers: {by_outcome[ERROR]}, "
        f"no answer: {by_outcome[NONE]}",
    ]


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.load.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--questions", type=int, default=3)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--run-timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    if args.seed is None:
        args.seed = random.randrange(10**6)
    return args


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(load(parse(argv)))


if __name__ == "__main__":
    sys.exit(main())
