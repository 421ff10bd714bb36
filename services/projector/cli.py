"""The operator's commands: `jipsa projections rebuild|status` and `jipsa audit RUN_ID`."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Annotated

import typer
from rich.console import Console

from services.platform import heap, loop
from services.platform.audit import print_timeline, timeline
from services.platform.eventstore import EventStore
from services.platform.runtime import ServersNotFound
from services.projector.bootstrap import load_settings, opened_store
from services.projector.digest import digest
from services.projector.runner import Projector
from services.projector.store import read_checkpoint

projections_app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Rebuild the read models from the event log, or see how far they are.",
)
console = Console()


@projections_app.command()
def rebuild() -> None:
    """Drop the projections and fold them again from position 0; the digests show whether they changed."""

    async def rebuilt(store: EventStore) -> None:
        async with store.pool.connection() as conn:
            before = await digest(conn)
        heap.settle()  # as the projector's process does before it folds
        started = time.perf_counter()
        folded = await Projector(store).rebuild()
        seconds = time.perf_counter() - started
        async with store.pool.connection() as conn:
            after = await digest(conn)
        console.print(
            f"folded {folded} events in {seconds:.2f} s ({folded / max(seconds, 1e-9):,.0f} events/s)"
        )
        console.print(f"digest before {before}")
        console.print(f"digest after  {after}")
        console.print(
            "unchanged: the live build equals the rebuild" if before == after else "changed by the rebuild"
        )

    _with_store(rebuilt)


@projections_app.command()
def status() -> None:
    """How far the projections have read the log."""

    async def reported(store: EventStore) -> None:
        async with store.pool.connection() as conn:
            checkpoint = await read_checkpoint(conn)
        head = await store.head()
        console.print(f"checkpoint {checkpoint} · store head {head} · behind by {head - checkpoint}")

    _with_store(reported)


def audit(run_id: Annotated[str, typer.Argument(help="the run to audit")]) -> None:
    """Print a run's timeline: every event, what caused it, its LLM calls and tool decisions."""

    async def audited(store: EventStore) -> None:
        records = await store.read_correlation(run_id)
        if not records:
            _complain(f"no events for run {run_id!r}: check the run id")
            raise typer.Exit(1)
        print_timeline(run_id, timeline(records), console)

    _with_store(audited)


def _with_store(command: Callable[[EventStore], Awaitable[None]]) -> None:
    async def opened() -> None:
        async with opened_store(load_settings()) as store:
            await command(store)

    try:
        loop.run(opened())
    except ServersNotFound as missing:
        _complain(str(missing))
        raise typer.Exit(2) from None


def _complain(message: str) -> None:
    Console(stderr=True).print(message, markup=False, highlight=False)
