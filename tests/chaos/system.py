"""The whole of Jipsa as `make run` runs it, owned by a chaos or load script: embedded NATS and Postgres
under a temporary folder, migrated, and every service of infra/processes.toml as a separate process under
procman's Supervisor, so a SIGKILLed service is restarted exactly as it would be in production.

The script owns the servers (it stops, wipes and restarts them) and finds the service processes through
/proc (children of this process whose environment names a `JIPSA_PROCESS`), not through procman's
internals. Children's output goes to `services.log` in the temporary folder; procman's own lines are kept
in memory, so a script can count the restarts it saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg

from services.platform.db import migrate
from services.platform.procman import Supervisor, load_processes
from services.platform.servers import EmbeddedNats, EmbeddedPostgres, free_port
from services.platform.settings import REPO_ROOT

NAMESPACE = "jipsa"
# Nothing of the caller's environment may turn rules mode into LLM mode or send telemetry anywhere.
_SCRUBBED_PREFIXES = ("OPENAI_", "JIPSA_LLM", "OTEL_", "JIPSA_OTEL")


class QuietSupervisor(Supervisor):
    """procman's Supervisor, with the children's output in a file and its own lines kept for counting."""

    def __init__(self, *args, log_path: Path, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.color = False
        self.output = log_path.open("a", encoding="utf-8")
        self.own_lines: list[tuple[float, str]] = []

    def log(self, tag: str, text: str) -> None:
        self.own_lines.append((time.time(), text))
        super().log(tag, text)

    def write(self, tag: str, text: str, color: int) -> None:
        self.output.write(f"{time.strftime('%H:%M:%S')} {tag:<{self.width}} | {text}\n")
        self.output.flush()

    @property
    def restarts(self) -> int:
        return sum(" restarting in " in line for _, line in self.own_lines)


@dataclass
class System:
    root: Path
    nats: EmbeddedNats
    postgres: EmbeddedPostgres
    database_url: str
    port: int
    supervisor: QuietSupervisor | None = None
    task: asyncio.Task | None = None
    started_at: float = field(default_factory=time.monotonic)

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def service_pids(self) -> dict[str, int]:
        """{"search.1": pid, ...}: the live service processes procman started for us."""
        me, found = os.getpid(), {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                status = (entry / "status").read_text()
                ppid = int(next(li.split()[1] for li in status.splitlines() if li.startswith("PPid:")))
                if ppid != me:
                    continue
                env = (entry / "environ").read_bytes().split(b"\0")
                tag = next(
                    (v[len(b"JIPSA_PROCESS=") :] for v in env if v.startswith(b"JIPSA_PROCESS=")), None
                )
                if tag:
                    found[tag.decode()] = int(entry.name)
        return found

    def memory_kib(self) -> dict[str, tuple[int, int]]:
        """{tag: (VmRSS, VmHWM)} in KiB, from /proc/<pid>/status of each service process."""
        sizes = {}
        for tag, pid in self.service_pids().items():
            with contextlib.suppress(OSError, StopIteration):
                lines = Path(f"/proc/{pid}/status").read_text().splitlines()
                value = {
                    li.split(":")[0]: int(li.split()[1]) for li in lines if li.startswith(("VmRSS", "VmHWM"))
                }
                sizes[tag] = (value["VmRSS"], value["VmHWM"])
        return sizes

    def kill_service(self, tag: str) -> int | None:
        pid = self.service_pids().get(tag)
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return pid

    async def wait_healthy(self, timeout: float) -> None:
        """Until /healthz says Postgres, NATS and the gateway's follower all answer."""
        deadline = time.monotonic() + timeout
        async with httpx.AsyncClient(base_url=self.http_url, timeout=5) as http:
            while time.monotonic() < deadline:
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get("/healthz")).status_code == 200:
                        return
                await asyncio.sleep(0.5)
        raise TimeoutError(f"the gateway was not healthy within {timeout:g} s (see {self.root}/services.log)")


# Every person of a script comes from 127.0.0.1, so the gateway's per-address limit on new sessions
# would throttle the script itself: its rate limits are off, as for a benchmark (settings.py).
UNLIMITED = {"JIPSA_GATEWAY_SESSIONS_PER_MINUTE": "0", "JIPSA_GATEWAY_QUERIES_PER_MINUTE": "0"}


def _child_env(system: System, infra_env: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_SCRUBBED_PREFIXES)}
    return {**env, **infra_env, **UNLIMITED, "JIPSA_PORT": str(system.port), "PYTHONUNBUFFERED": "1"}


def _copy_terms_memo(root: Path) -> None:
    """The repo's Kiwi analysis memo, if a `make run` left one: seeding a fresh database then takes
    seconds instead of a minute of Kiwi. It only caches a pure function of the corpus text."""
    cache = REPO_ROOT / ".data" / "cache"
    if cache.is_dir():
        shutil.copytree(cache, root / "cache", dirs_exist_ok=True)


@contextlib.asynccontextmanager
async def running_system(grace: float = 5.0, keep: bool = False) -> AsyncIterator[System]:
    """Servers started, database migrated, every service under procman; all stopped on the way out."""
    root = Path(tempfile.mkdtemp(prefix="jipsa-chaos-"))
    nats, postgres = EmbeddedNats(root / "nats"), EmbeddedPostgres(root / "postgres")
    nats.start()
    postgres.start()
    try:
        with psycopg.connect(postgres.url, autocommit=True) as admin:
            admin.execute("CREATE DATABASE jipsa")
        database_url = postgres.url.rsplit("/", 1)[0] + "/jipsa"
        migrate(database_url)
        _copy_terms_memo(root)
        system = System(root, nats, postgres, database_url, free_port())
        infra_env = {
            "DATABASE_URL": database_url,
            "NATS_URL": nats.url,
            "JIPSA_NAMESPACE": NAMESPACE,
            "JIPSA_DATA_DIR": str(root),
        }
        system.supervisor = QuietSupervisor(
            load_processes(), _child_env(system, infra_env), grace, log_path=root / "services.log"
        )
        system.task = asyncio.create_task(system.supervisor.run())
        try:
            yield system
        finally:
            system.supervisor.stopping.set()
            await asyncio.wait_for(system.task, grace + 30)
            system.supervisor.output.close()
    finally:
        nats.stop(kill=True)
        postgres.stop(kill=True)
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
