"""The supervisor `make run` uses, run as a real process over tiny scripts: restarts, backoff,
a clean stop on Ctrl-C; and the embedded servers it starts when no URLs are given."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import nats
import psycopg
import pytest

from services.platform.runtime import (
    ServersNotFound,
    infrastructure,
    load_infra_settings,
    resolve_servers,
    stop_servers,
)
from services.platform.settings import REPO_ROOT, InfraSettings
from tests.servers import ServerUrls

pytestmark = pytest.mark.integration

# Each start appends a JSON line (pid, time, the env it was given) to <tmp>/<name.N>.starts.
CHILD = """
import json, os, signal, sys, time
record = {"pid": os.getpid(), "t": time.time(),
          **{k: os.environ.get(k) for k in ("DATABASE_URL", "NATS_URL", "JIPSA_NAMESPACE")}}
with open(os.path.join(sys.argv[1], os.environ["JIPSA_PROCESS"] + ".starts"), "a") as f:
    f.write(json.dumps(record) + "\\n")
mode = sys.argv[2]
print(f"{mode} up", flush=True)
if mode == "crash":
    sys.exit(3)
if mode == "stubborn":
    signal.signal(signal.SIGTERM, lambda *_: print("ignoring TERM", flush=True))
while True:
    time.sleep(3600)
"""


def wait_until(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := condition():
            return result
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def starts(tmp_path: Path, tag: str) -> list[dict[str, Any]]:
    path = tmp_path / f"{tag}.starts"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


class RunningSupervisor:
    """`python -m services.platform.procman` over a process list of our child script."""

    def __init__(
        self, tmp_path: Path, env: dict[str, str], processes: dict[str, tuple[str, int]], grace: float
    ):
        script = tmp_path / "child.py"
        script.write_text(textwrap.dedent(CHILD))
        entries = [
            f'[[process]]\nname = "{name}"\ncommand = ["python", "{script}", "{tmp_path}", "{mode}"]\n'
            f"replicas = {replicas}\n"
            for name, (mode, replicas) in processes.items()
        ]
        (tmp_path / "processes.toml").write_text("\n".join(entries))
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "services.platform.procman",
                "--processes",
                str(tmp_path / "processes.toml"),
                "--grace",
                str(grace),
            ],
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def matching(self, pattern: str) -> list[re.Match[str]]:
        return [m for line in list(self.lines) if (m := re.search(pattern, line))]

    def wait_for_line(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        return wait_until(lambda: next(iter(self.matching(pattern)), None), timeout, f"a line /{pattern}/")

    def stop(self, timeout: float = 30.0) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=timeout)

    def output(self) -> str:
        return "\n".join(self.lines)


@pytest.fixture
def supervisor_env(
    database_url: str, server_urls: ServerUrls, namespace: str, tmp_path: Path
) -> dict[str, str]:
    """Real server URLs given explicitly, so the supervisor starts no embedded servers."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "NATS_URL": server_urls.nats_url,
        "JIPSA_NAMESPACE": namespace,
        "JIPSA_DATA_DIR": str(tmp_path / "data"),
    }


@pytest.fixture
def run_supervisor(
    tmp_path: Path, supervisor_env: dict[str, str]
) -> Iterator[Callable[..., RunningSupervisor]]:
    started: list[RunningSupervisor] = []

    def run(processes: dict[str, tuple[str, int]], grace: float = 5.0) -> RunningSupervisor:
        started.append(RunningSupervisor(tmp_path, supervisor_env, processes, grace))
        return started[-1]

    yield run
    for supervisor in started:  # a failed test must not leave a supervisor (and its children) behind
        if supervisor.process.poll() is None:
            supervisor.process.kill()
            supervisor.process.wait()


def test_a_killed_process_is_restarted_with_the_servers_in_its_env(
    run_supervisor: Callable[..., RunningSupervisor], tmp_path: Path, supervisor_env: dict[str, str]
) -> None:
    supervisor = run_supervisor({"worker": ("steady", 2)})
    first = wait_until(lambda: starts(tmp_path, "worker.1"), 30, "worker.1 to start")[0]
    wait_until(lambda: starts(tmp_path, "worker.2"), 30, "worker.2 to start")
    assert {k: first[k] for k in ("DATABASE_URL", "NATS_URL", "JIPSA_NAMESPACE")} == {
        k: supervisor_env[k] for k in ("DATABASE_URL", "NATS_URL", "JIPSA_NAMESPACE")
    }
    supervisor.wait_for_line(r"^worker\.1 +\| steady up$")

    os.kill(first["pid"], signal.SIGKILL)

    second = wait_until(lambda: starts(tmp_path, "worker.1")[1:], 30, "worker.1 to be restarted")[0]
    assert second["pid"] != first["pid"]
    supervisor.wait_for_line(r"worker\.1 exited with code -9 after [\d.]+s; restarting in 0\.5s")
    supervisor.wait_for_line(rf"started worker\.1 \(pid {second['pid']}\)")
    assert len(starts(tmp_path, "worker.2")) == 1, "the other replica was left alone"
    assert supervisor.stop() == 0


def test_sigint_stops_every_child_and_exits_zero(
    run_supervisor: Callable[..., RunningSupervisor], tmp_path: Path
) -> None:
    supervisor = run_supervisor({"steady": ("steady", 2), "stubborn": ("stubborn", 1)}, grace=1.0)
    tags = ["steady.1", "steady.2", "stubborn.1"]
    pids = [wait_until(lambda t=t: starts(tmp_path, t), 30, f"{t} to start")[0]["pid"] for t in tags]
    supervisor.wait_for_line(r"^stubborn\.1 +\| stubborn up$")  # its TERM handler is in place

    assert supervisor.stop(timeout=30) == 0, supervisor.output()

    assert not [pid for pid in pids if alive(pid)]
    supervisor.wait_for_line(r"^stubborn\.1 +\| ignoring TERM$", timeout=1)
    supervisor.wait_for_line(r"stubborn\.1 still running after 1s; killing it", timeout=1)
    supervisor.wait_for_line(r"steady\.2 stopped with code -15", timeout=1)
    assert not supervisor.matching(r"restarting in"), "a child stopped on purpose is not restarted"


def test_a_crashing_process_is_restarted_with_growing_delays(
    run_supervisor: Callable[..., RunningSupervisor], tmp_path: Path
) -> None:
    supervisor = run_supervisor({"crasher": ("crash", 1)})
    runs = wait_until(lambda: (s := starts(tmp_path, "crasher.1"))[3:] and s, 60, "four starts of crasher.1")
    assert supervisor.stop() == 0

    logged = [
        float(m[1])
        for m in supervisor.matching(r"crasher\.1 exited with code 3 after .*restarting in ([\d.]+)s")
    ]
    assert logged[:3] == [0.5, 1.0, 2.0]
    gaps = [b["t"] - a["t"] for a, b in zip(runs, runs[1:], strict=False)][:3]
    assert all(gap >= delay for gap, delay in zip(gaps, logged, strict=False)), (gaps, logged)
    assert gaps[2] > gaps[0], gaps
    assert all(gap < 20 for gap in gaps), gaps  # generous: the backoff, not a hang


def port_of(url: str) -> int:
    return int(re.search(r":(\d+)(/|$)", url.split(",")[0])[1])  # type: ignore[index]


def test_without_urls_embedded_servers_start_and_keep_their_ports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("DATABASE_URL", "NATS_URL", "JIPSA_NAMESPACE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JIPSA_DATA_DIR", str(tmp_path))
    settings = InfraSettings()

    with infrastructure(settings) as infra:
        assert infra.database_url and infra.nats_url
        with psycopg.connect(infra.database_url) as conn:
            assert conn.execute("SELECT current_database()").fetchone() == ("jipsa",)
            assert conn.execute("SELECT to_regclass('alembic_version')").fetchone() != (None,), "migrated"
        assert load_infra_settings().model_dump() == infra.model_dump(), "another terminal finds the run"
        first_ports = (port_of(infra.database_url), port_of(infra.nats_url))
        assert (tmp_path / "postgres" / "pgdata").is_dir() and (tmp_path / "nats").is_dir()

        async def nats_answers() -> None:
            nc = await nats.connect(infra.nats_url)
            await nc.jetstream().account_info()
            await nc.close()

        asyncio.run(nats_answers())

    with pytest.raises(ServersNotFound, match="make run"):
        load_infra_settings()

    database_url, nats_url, started = resolve_servers(settings)
    try:
        assert (port_of(database_url), port_of(nats_url)) == first_ports
        with psycopg.connect(database_url) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        stop_servers(started)
    assert all(server.process is None for server in started)
