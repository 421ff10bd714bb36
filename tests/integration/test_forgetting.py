"""모두 잊기 holds in an append-only store (crypto-shredding, services/platform/sealing.py), through the
public interfaces (REST and the WebSocket, the whole system in-process on real NATS and Postgres): what
the person said is sealed in the log and on the bus from the start; once they are forgotten no table of
Postgres, no message of the JetStream stream and no log line at INFO holds it, the projections and the
audit show the fields erased and the runs otherwise as they were, a rebuild makes the same projections,
and the supervisor replays the person's runs to the same ends.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from pathlib import Path

import httpx
import nats
import pytest
from psycopg.rows import dict_row

from contracts.personal import ERASED
from services.platform.audit import timeline
from services.platform.store_reads import run_events
from services.projector.digest import digest
from services.projector.runner import Projector
from services.supervisor.decide import decide
from services.supervisor.run import fold
from tests.integration.bus_helpers import wait_until
from tests.integration.gateway_helpers import connected
from tests.integration.test_documents_end_to_end import SALE, SALE_ANSWERS, answered_run, docx_text
from tests.integration.test_person_memory import answer_in_new_session, memory, new_person, session_of
from tests.integration.test_run_end_to_end import jipsa

pytestmark = pytest.mark.integration

WORD = "나비야옹"  # a word this person says, and a stranger too, in a session of nobody
SAID = f"연봉 3817이에요. 관악구 아파트 전세 알아보고 있어요. 우리 고양이 이름은 {WORD}"
TRACES = ("3,817", "고양이 이름")  # the person's alone: their words and the fact read from them


async def tables_holding(conn, needles) -> list[str]:
    """Every table of the database (all schemas) with a row whose text holds one of the needles."""
    cur = conn.cursor(row_factory=dict_row)
    await cur.execute(
        "SELECT table_schema, table_name FROM information_schema.tables"
        " WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')"
    )
    holding = []
    for t in await cur.fetchall():
        name = f'"{t["table_schema"]}"."{t["table_name"]}"'
        for needle in needles:
            await cur.execute(f"SELECT count(*) AS n FROM {name} t WHERE t::text LIKE %s", (f"%{needle}%",))
            if (await cur.fetchone())["n"]:
                holding.append(f"{name}: {needle}")
    return holding


async def stream_messages(nats_url: str, stream: str) -> list[str]:
    nc = await nats.connect(nats_url)
    try:
        js = nc.jetstream()
        last = (await js.stream_info(stream)).state.last_seq
        bodies = []
        for seq in range(1, last + 1):
            body = (await js.get_msg(stream, seq)).data.decode()
            bodies.append(body + json.dumps(json.loads(body), ensure_ascii=False))
        return bodies
    finally:
        await nc.close()


async def test_forgetting_a_person_leaves_no_readable_trace_and_the_rest_as_it_was(
    store, infra, caplog
) -> None:
    caplog.set_level(logging.INFO)
    async with jipsa(store, infra) as gateway, httpx.AsyncClient(base_url=gateway.http_url) as http:
        person = await new_person(http)
        said = await answer_in_new_session(gateway, http, person, SAID)
        run_id = said["run_id"]
        assert ("fact", "연소득 3,817만원") in {
            (i["kind"], i["value"]) for i in (await memory(http, person))["items"]
        }
        other = await answer_in_new_session(gateway, http, None, f"관악구 아파트 전세 시세 {WORD}")

        async with store.pool.connection() as conn:
            await wait_until(lambda: _projected(conn, other["run_id"]), timeout=30)
            # Sealed in the log and on the bus from the start, readable where the person is shown it.
            holding = await tables_holding(conn, TRACES)
            assert '"public"."final_states": 고양이 이름' in holding, holding
            assert not [t for t in holding if '"events"' in t], holding
            before = await _shapes(conn, run_id)
        assert not [b for b in await stream_messages(infra.nats_url, infra.stream_name) if _traced(b)]

        auth = {"Authorization": f"Bearer {person}"}
        (await http.delete("/api/people/me/memory", headers=auth)).raise_for_status()
        assert (await memory(http, person))["items"] == []

        projector = Projector(store)
        async with store.pool.connection() as conn:
            await wait_until(lambda: _erased(conn, run_id), timeout=30)
            await projector.catch_up()
            assert await tables_holding(conn, TRACES) == []
            # The stranger's words are theirs: untouched.
            assert '"public"."events": 나비야옹' in await tables_holding(conn, (WORD,))
            assert await _shapes(conn, run_id) == before  # the run's steps and ends, as they were
            live = await digest(conn)
            await projector.rebuild()
            assert await digest(conn) == live

            # The audit shows that something was erased, not what.
            records = await run_events(conn, run_id, 0, 1000)
            rows = timeline(records)
            assert ERASED in str(rows) and not _traced(str(rows))
            # The supervisor replays the run to the same end, deciding nothing new.
            envelopes = [r.envelope for r in records if r.envelope.stream_id == f"run-{run_id}"]
            state = fold(run_id, envelopes)
            assert state.outcome is not None
            assert decide(state, datetime.now(UTC)).events == []

        assert not [b for b in await stream_messages(infra.nats_url, infra.stream_name) if _traced(b)]
    assert not _traced(caplog.text)


def _traced(text: str) -> bool:
    return any(t in text for t in TRACES)


async def _projected(conn, run_id: str) -> bool:
    cur = await conn.execute(
        "SELECT 1 FROM final_states WHERE run_id = %s AND response IS NOT NULL", (run_id,)
    )
    return bool(await cur.fetchall())


async def _erased(conn, run_id: str) -> bool:
    cur = await conn.execute("SELECT query FROM final_states WHERE run_id = %s", (run_id,))
    rows = await cur.fetchall()
    return bool(rows) and rows[0]["query"] == ERASED


async def _shapes(conn, run_id: str) -> list:
    """What a run's projections say apart from the person's words: its steps, their teams and ends."""
    cur = await conn.execute(
        "SELECT step_id, team, status FROM todo_steps WHERE run_id = %s ORDER BY step_id", (run_id,)
    )
    steps = await cur.fetchall()
    cur = await conn.execute(
        "SELECT status, intent->>'type' AS intent, session_id FROM final_states WHERE run_id = %s", (run_id,)
    )
    return [steps, await cur.fetchall()]


SELLER, BUYER = "나비집주인", "고양이매수인"  # names this person alone writes into a contract


async def test_a_forgotten_persons_contract_is_gone_and_its_fields_erased(store, infra) -> None:
    async with jipsa(store, infra) as gateway, httpx.AsyncClient(base_url=gateway.http_url) as http:
        person = await new_person(http)
        session_id, token = await session_of(http, person)
        answers = {**SALE_ANSWERS, "seller_name": SELLER, "buyer_name": BUYER}
        async with connected(gateway, session_id, token) as client:
            _, response, _ = await answered_run(client, SALE, answers)
        assert f"매도인({SELLER})과 매수인({BUYER})" in await docx_text(gateway, token, response)
        docx = next(d for d in response["data"]["documents"] if d["name"].endswith(".docx"))
        async with store.pool.connection() as conn:
            backup = await (await conn.execute("SELECT * FROM person_keys")).fetchall()
        assert backup

        (
            await http.delete("/api/people/me/memory", headers={"Authorization": f"Bearer {person}"})
        ).raise_for_status()
        download = await http.get(
            f"/api/documents/{docx['artifact_id']}", headers={"Authorization": f"Bearer {token}"}
        )
        assert download.status_code == 404
        async with store.pool.connection() as conn:
            await wait_until(lambda: _no_table_holds(conn, (SELLER, BUYER)), timeout=30)
        assert not [
            b for b in await stream_messages(infra.nats_url, infra.stream_name) if SELLER in b or BUYER in b
        ]

        # A key table restored from a backup taken before: README's statement deletes those keys again.
        async with store.pool.connection() as conn:
            for key in backup:
                await conn.execute(
                    "INSERT INTO person_keys (run_id, person_id, key, created_at) VALUES (%s, %s, %s, %s)",
                    (key["run_id"], key["person_id"], key["key"], key["created_at"]),
                )
            await conn.execute(readme_restore_statement())
            assert await (await conn.execute("SELECT * FROM person_keys")).fetchall() == []


def readme_restore_statement() -> str:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    return re.search(r"```sql\n(DELETE FROM person_keys.*?)```", readme, re.S).group(1)


async def _no_table_holds(conn, needles) -> bool:
    return not await tables_holding(conn, needles)
