"""`jipsa` commands facing a server that does not answer: one line naming it (no password), exit 3."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from services.platform.servers import free_port

pytestmark = pytest.mark.fault
JIPSA = str(Path(sys.executable).parent / "jipsa")  # the console script `make install` puts in the venv


def jipsa(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [JIPSA, *args], env={**os.environ, **env}, capture_output=True, text=True, timeout=120
    )


def test_a_closed_postgres_port_is_one_line_naming_the_store() -> None:
    port = free_port()  # bound and released: nothing listens there
    url = f"postgresql://postgres:hunter2@127.0.0.1:{port}/jipsa"

    done = jipsa("projections", "status", DATABASE_URL=url)

    assert (done.returncode, done.stdout) == (3, ""), done
    assert done.stderr.splitlines() == [
        f"jipsa: 저장소(Postgres)에 연결할 수 없습니다: postgresql://postgres@127.0.0.1:{port}/jipsa"
    ]


def test_a_closed_nats_port_is_one_line_naming_the_bus(database_url: str) -> None:
    nats_url = f"nats://127.0.0.1:{free_port()}"

    done = jipsa("replay", DATABASE_URL=database_url, NATS_URL=nats_url, JIPSA_NAMESPACE="tcli")

    assert done.returncode == 3, done
    assert done.stderr.splitlines() == [f"jipsa: 메시지 버스(NATS)에 연결할 수 없습니다: {nats_url}"]
