"""The document team over real NATS and Postgres: StepStarted{team: document} in, StepCompleted out,
the contract's bytes in the documents table under their hash, served only to the owning session."""

from __future__ import annotations

import hashlib

import pytest

from contracts import new_envelope
from contracts.results import StepResult
from contracts.supervisor import StepStarted
from contracts.values import Team
from services.document.bootstrap import CITABLE, DocumentSettings
from services.document.common.artifacts import Artifact, load_document, store_artifact
from services.document.common.citations import load_statutes
from services.document.handlers import document_work
from services.platform.consumer import Consumer
from services.platform.publisher import Publisher
from services.platform.team import team_subscription
from tests.integration.bus_helpers import running, wait_until
from tests.unit.test_document_draft import ANSWERS, QUERY

pytestmark = pytest.mark.integration


def started(run: str, step: str, inputs: dict):
    event = StepStarted(
        run_id=run, step_id=step, team=Team.DOCUMENT, task="임대차계약서 작성", inputs=inputs, timeout_s=30
    )
    return new_envelope(event, stream_id=f"run-{run}", correlation_id=run, session_id="owner")


async def completed(store, step: str) -> StepResult | None:
    for recorded in await store.read_all():
        if recorded.envelope.event_type == "StepCompleted" and recorded.envelope.data["step_id"] == step:
            return StepResult.model_validate(recorded.envelope.data["result"])
    return None


async def test_ask_then_write_then_serve_only_to_the_owner(store, nc, infra) -> None:
    statutes = load_statutes(DocumentSettings().corpus_path, CITABLE)
    team = Consumer(
        team_subscription(Team.DOCUMENT, document_work(store.pool, statutes)),
        store.pool,
        nc,
        infra,
    )
    await store.append([started("r1", "ask", {"query": QUERY, "focus": ["lease_contract"]})])
    async with running(Publisher(store.pool, nc, infra), team):
        await wait_until(lambda: _done(store, "ask"), what="the asking step completed")
        await store.append([started("r1", "write", {"query": QUERY, "answers": ANSWERS})])
        await wait_until(lambda: _done(store, "write"), what="the writing step completed")

    asked = await completed(store, "ask")
    assert [q.field for q in asked.questions][:3] == ["landlord_name", "tenant_name", "address"]
    assert asked.documents == []

    written = await completed(store, "write")
    assert written.questions == [] and len(written.documents) == 2
    async with store.pool.connection() as conn:
        rows = await (await conn.execute("SELECT artifact_id, sha256, content FROM documents")).fetchall()
        assert len(rows) == 2
        for ref in written.documents:
            found = await load_document(conn, ref.artifact_id, "owner")
            assert found is not None
            name, media_type, content = found
            assert (name, media_type) == (ref.name, ref.media_type)
            assert hashlib.sha256(content).hexdigest() == ref.sha256
            assert ref.artifact_id.startswith(ref.sha256)
            assert await load_document(conn, ref.artifact_id, "someone-else") is None
        assert await load_document(conn, "no-such-document", "owner") is None


async def test_storing_the_same_content_twice_is_one_row(pool) -> None:
    artifact = Artifact("계약서.md", "text/markdown", "# 주택임대차 표준계약서".encode())
    async with pool.connection() as conn:
        first = await store_artifact(conn, artifact, "s1", "r1")
        again = await store_artifact(conn, artifact, "s1", "r1-retry")
        other_session = await store_artifact(conn, artifact, "s2", "r2")
        count = await (await conn.execute("SELECT count(*) AS n FROM documents")).fetchone()
    assert first == again and other_session.artifact_id != first.artifact_id
    assert count["n"] == 2


async def _done(store, step: str) -> bool:
    return await completed(store, step) is not None
