"""The embedded Postgres asks for the password `make run` generated and keeps under the data folder;
a data folder made when it trusted every local user is secured on its next start, its data kept."""

from __future__ import annotations

import stat
from pathlib import Path

import psycopg
import pytest

from services.platform.servers import EmbeddedPostgres

pytestmark = pytest.mark.fault


def without_password(server: EmbeddedPostgres) -> str:
    return f"postgresql://postgres@127.0.0.1:{server.port}/postgres"


def test_a_new_data_folder_asks_for_its_generated_password(tmp_path: Path) -> None:
    server = EmbeddedPostgres(tmp_path / "postgres")
    try:
        url = server.start()
        password = server.password_file.read_text().strip()
        assert stat.S_IMODE(server.password_file.stat().st_mode) == 0o600
        assert len(password) >= 24 and f"postgres:{password}@" in url
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(without_password(server))
    finally:
        server.stop(kill=True)


def test_a_trusting_data_folder_is_secured_on_its_next_start(tmp_path: Path) -> None:
    server = EmbeddedPostgres(tmp_path / "postgres")
    try:
        with psycopg.connect(server.start(), autocommit=True) as conn:
            conn.execute("CREATE TABLE kept (n int)")
            conn.execute("INSERT INTO kept VALUES (7)")
        server.stop()
        # As every data folder was before passwords: trust in pg_hba.conf, no password file.
        hba = server.hba_file.read_text()
        server.hba_file.write_text(hba.replace("scram-sha-256", "trust"))
        server.password_file.unlink()

        url = server.start()

        assert "trust" not in [
            line.split()[-1]
            for line in server.hba_file.read_text().splitlines()
            if line.startswith(("local", "host"))
        ]
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT n FROM kept").fetchone() == (7,)
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(without_password(server))
    finally:
        server.stop(kill=True)
