"""A small process supervisor: what `make run` (`jipsa run`) uses to keep every service up.

Every replica of every process in `infra/processes.toml` runs as a child with the resolved
server URLs in its environment; its output is tagged `name.N |`; if it exits, it is started
again after a backoff that doubles from 0.5s to 30s and resets once it stayed up 30s. Any exit
counts: a service is meant to run until it is told to stop.

The embedded Postgres and NATS it started (when no URLs are given) are watched the same way:
one that dies is started again on the same port, with the same data and password, after the
same backoff, and logged; the services reconnect by themselves (pools and NATS clients retry,
consumers wait out the outage without spending attempts).

Each child runs in a process group (session) of its own, so Ctrl-C in the terminal reaches
only this supervisor. It then stops the children itself: SIGTERM to every group at once, a
grace period for them to finish their work in hand, SIGKILL for what is left; only then are
the embedded servers stopped, since a service mid-shutdown may still be writing to them.

    python -m services.platform.procman [--processes FILE] [--grace SECONDS]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from services.platform.runtime import Server, servers_up
from services.platform.settings import REPO_ROOT, InfraSettings

PROCESSES_FILE = REPO_ROOT / "infra" / "processes.toml"
GRACE_SECONDS = 10.0
BACKOFF_FIRST, BACKOFF_MAX, STABLE_AFTER = 0.5, 30.0, 30.0
SERVER_POLL_S = 0.5  # how soon a dead embedded server is noticed
COLORS = [36, 33, 35, 32, 34, 91, 96, 93]  # ANSI: cyan, yellow, magenta, green, blue, ...


@dataclass(frozen=True)
class ProcessSpec:
    name: str
    command: list[str]
    replicas: int = 1


def load_processes(path: Path = PROCESSES_FILE) -> list[ProcessSpec]:
    """The process list; "python" becomes this interpreter, so children run in the same venv."""
    entries = tomllib.loads(path.read_text())["process"]
    return [
        ProcessSpec(
            e["name"], [sys.executable if a == "python" else a for a in e["command"]], e.get("replicas", 1)
        )
        for e in entries
    ]


class Supervisor:
    def __init__(
        self,
        processes: Sequence[ProcessSpec],
        env: dict[str, str],
        grace: float,
        servers: Sequence[Server] = (),
    ) -> None:
        self.processes, self.env, self.grace, self.servers = processes, env, grace, servers
        self.stopping = asyncio.Event()
        self.color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        self.width = max((len(f"{p.name}.{p.replicas}") for p in processes), default=7)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self._request_stop, sig)
        replicas = [(p, n) for p in self.processes for n in range(1, p.replicas + 1)]
        async with asyncio.TaskGroup() as group:
            for i, (spec, n) in enumerate(replicas):
                group.create_task(self._keep_running(spec, n, COLORS[i % len(COLORS)]))
            for server in self.servers:
                group.create_task(self._keep_server_up(server))
        self.log("procman", "all processes stopped")

    def _request_stop(self, sig: signal.Signals) -> None:
        if not self.stopping.is_set():
            self.log("procman", f"{sig.name}: stopping every process (grace {self.grace:g}s)")
        self.stopping.set()

    async def _keep_running(self, spec: ProcessSpec, n: int, color: int) -> None:
        tag, delay = f"{spec.name}.{n}", BACKOFF_FIRST
        while not self.stopping.is_set():
            started = time.monotonic()
            outcome = await self._run_once(spec, tag, color)
            if self.stopping.is_set():
                return
            uptime = time.monotonic() - started
            delay = BACKOFF_FIRST if uptime >= STABLE_AFTER else delay
            self.log("procman", f"{tag} {outcome} after {uptime:.1f}s; restarting in {delay:.1f}s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), delay)
            delay = min(delay * 2, BACKOFF_MAX)

    async def _keep_server_up(self, server: Server) -> None:
        """Start an embedded server again when it dies, at its port and on its data, with backoff."""
        delay, up_since = BACKOFF_FIRST, time.monotonic()
        while not self.stopping.is_set():
            if server.process is not None and server.process.poll() is None:
                await self._stop_or_timeout(SERVER_POLL_S)
                continue
            code = server.process.returncode if server.process else None
            uptime = time.monotonic() - up_since
            delay = BACKOFF_FIRST if uptime >= STABLE_AFTER else delay
            self.log("procman", f"{server.name} exited with code {code}; restarting in {delay:.1f}s")
            if await self._stop_or_timeout(delay):
                return
            delay = min(delay * 2, BACKOFF_MAX)
            try:
                await asyncio.to_thread(server.start)
            except Exception as e:  # not up yet (a killed Postgres's backends still exiting): try again
                self.log("procman", f"{server.name} did not start: {e}")
                continue
            up_since = time.monotonic()
            assert server.process is not None  # start() has just launched it
            self.log("procman", f"restarted {server.name} on port {server.port} (pid {server.process.pid})")

    async def _stop_or_timeout(self, seconds: float) -> bool:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)
        return self.stopping.is_set()

    async def _run_once(self, spec: ProcessSpec, tag: str, color: int) -> str:
        """Run the child until it exits or we are told to stop; say how it ended."""
        try:
            child = await asyncio.create_subprocess_exec(
                *spec.command,
                env={**self.env, "JIPSA_PROCESS": tag},
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
                limit=2**20,  # a long JSON log line must not kill the pump
            )
        except OSError as e:  # a missing binary is retried like a crash, not fatal to the others
            return f"could not start ({e})"
        self.log("procman", f"started {tag} (pid {child.pid})")
        output = asyncio.create_task(self._pump(child, tag, color))
        if await self._stopped_before_exit(child):
            await self._stop(child, tag)
        else:  # whatever it left running in its group would hold the output pipe open
            self._signal_group(child, signal.SIGKILL)
        await output
        return f"exited with code {child.returncode}"

    async def _stopped_before_exit(self, child: asyncio.subprocess.Process) -> bool:
        exited, stop = asyncio.create_task(child.wait()), asyncio.create_task(self.stopping.wait())
        await asyncio.wait({exited, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        return not exited.done()

    async def _stop(self, child: asyncio.subprocess.Process, tag: str) -> None:
        """TERM to the child's whole group (its own children too), then KILL after the grace."""
        self._signal_group(child, signal.SIGTERM)
        try:
            await asyncio.wait_for(child.wait(), self.grace)
        except TimeoutError:
            self.log("procman", f"{tag} still running after {self.grace:g}s; killing it")
            self._signal_group(child, signal.SIGKILL)
            await child.wait()
        self.log("procman", f"{tag} stopped with code {child.returncode}")

    @staticmethod
    def _signal_group(child: asyncio.subprocess.Process, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError):  # already gone: nothing to stop
            os.killpg(child.pid, sig)

    async def _pump(self, child: asyncio.subprocess.Process, tag: str, color: int) -> None:
        assert child.stdout is not None
        async for line in child.stdout:
            self.write(tag, line.decode(errors="replace").rstrip("\n"), color)

    def log(self, tag: str, text: str) -> None:
        self.write(tag, text, 1)  # bold for the supervisor's own lines

    def write(self, tag: str, text: str, color: int) -> None:
        label = f"{tag:<{self.width}} |"
        sys.stdout.write(f"\x1b[{color}m{label}\x1b[0m {text}\n" if self.color else f"{label} {text}\n")
        sys.stdout.flush()


def run_all(
    processes: Sequence[ProcessSpec] | None = None,
    settings: InfraSettings | None = None,
    *,
    grace: float = GRACE_SECONDS,
) -> int:
    """Start the servers (unless named), migrate, run every process until SIGINT/SIGTERM; 0 when stopped."""
    settings = settings or InfraSettings()
    processes = load_processes() if processes is None else processes
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    # Until the event loop installs its handlers, TERM unwinds like Ctrl-C does, so servers
    # already started are stopped rather than orphaned (they run in sessions of their own).
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        with servers_up(settings) as (infra, servers):
            env = {
                **os.environ,
                "DATABASE_URL": infra.database_url,
                "NATS_URL": infra.nats_url,
                "JIPSA_NAMESPACE": infra.namespace,
                "JIPSA_DATA_DIR": str(infra.data_dir),
                "PYTHONUNBUFFERED": "1",  # a piped child would otherwise hold its lines back
            }
            asyncio.run(Supervisor(processes, env, grace, servers).run())
            # Stopping the servers takes seconds; a second Ctrl-C must not cut that short and
            # leave them orphaned.
            for sig in previous:
                signal.signal(sig, signal.SIG_IGN)
    except KeyboardInterrupt:
        pass  # interrupted while starting: `infrastructure` has stopped what it started
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m services.platform.procman")
    parser.add_argument("--processes", type=Path, default=PROCESSES_FILE)
    parser.add_argument("--grace", type=float, default=GRACE_SECONDS)
    args = parser.parse_args(argv)
    return run_all(load_processes(args.processes), grace=args.grace)


if __name__ == "__main__":
    sys.exit(main())
