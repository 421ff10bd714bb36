"""`make run`'s embedded servers are supervised like its services: Postgres or NATS SIGKILLed is
started again by procman (logged), the services reconnect by themselves, and the next question is
answered. procman runs as `make run` runs it, with no server URLs, over the services a greeting needs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from services.platform.servers import free_port
from services.platform.settings import REPO_ROOT
from tests.integration.test_procman import wait_until

pytestmark = pytest.mark.fault
SERVICES = ["publisher", "projector", "planner", "supervisor", "gateway"]  # all a greeting goes through
SCRUBBED = ("DATABASE_URL", "NATS_URL", "JIPSA_NAMESPACE", "OPENAI_", "JIPSA_LLM", "OTEL_", "JIPSA_OTEL")


class MakeRun:
    def __init__(self, root: Path) -> None:
        self.root, self.port = root, free_port()
        processes = root / "processes.toml"
        processes.write_text(
            "".join(
                f'[[process]]\nname = "{name}"\ncommand = ["python", "-m", "services.{module}"]\n\n'
                for name, module in ((s, "platform.publisher" if s == "publisher" else s) for s in SERVICES)
            )
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED)}
        env |= {"JIPSA_DATA_DIR": str(root / "data"), "JIPSA_PORT": str(self.port), "NO_COLOR": "1"}
        self.log = (root / "make-run.log").open("w")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "services.platform.procman",
                "--processes",
                str(processes),
                "--grace",
                "5",
            ],
            cwd=REPO_ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def said(self, text: str) -> int:
        return (self.root / "make-run.log").read_text(errors="replace").count(text)

    def healthy(self) -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def greeting_answered(self) -> bool:
        ask = subprocess.run(
            [
                str(Path(sys.executable).parent / "jipsa"),
                "ask",
                "--json",
                "--url",
                f"http://127.0.0.1:{self.port}",
            ]
            + ["--timeout", "30", "안녕"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        return ask.returncode == 0 and json.loads(ask.stdout)["response"]["type"] == "guidance"

    def postgres_pid(self) -> int:
        return int((self.root / "data" / "postgres" / "pgdata" / "postmaster.pid").read_text().split()[0])

    def nats_pid(self) -> int:
        store = str(self.root / "data" / "nats")
        for entry in Path("/proc").iterdir():
            try:
                argv = (entry / "cmdline").read_bytes().decode().split("\0")
            except (OSError, ValueError):
                continue
            if argv[0].endswith("nats-server") and any(a.startswith(store) for a in argv):
                return int(entry.name)
        raise LookupError("no embedded nats-server")

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=60)


@pytest.fixture
def make_run(tmp_path: Path) -> Iterator[MakeRun]:
    run = MakeRun(tmp_path)
    try:
        yield run
    finally:
        if run.stop() != 0:
            run.process.kill()
        run.log.close()


@pytest.mark.parametrize("server", ["postgres", "nats"])
def test_an_embedded_server_killed_is_restarted_and_the_next_question_answered(
    make_run: MakeRun, server: str
) -> None:
    wait_until(make_run.healthy, 180, "make run up and healthy")
    assert make_run.greeting_answered(), "a greeting before the kill"
    pid = make_run.postgres_pid() if server == "postgres" else make_run.nats_pid()

    os.kill(pid, signal.SIGKILL)

    wait_until(lambda: make_run.said(f"restarted {server} on port"), 120, f"procman restarting {server}")
    assert make_run.said(f"{server} exited with code -9; restarting in 0.5s") == 1
    new_pid = make_run.postgres_pid() if server == "postgres" else make_run.nats_pid()
    assert new_pid != pid
    wait_until(lambda: make_run.healthy() and make_run.greeting_answered(), 180, "the next question answered")
    assert make_run.stop() == 0
