"""`jipsa_append` raises when the stream moved past the expected version, instead of returning a row
that says so, so an append and its transaction's COMMIT can go in one round trip.

A consumer's append is the last statement of its transaction, and the lock every append takes is held
until COMMIT. Sent one after the other, the lock was held for the append's answer to reach the client,
the client's reading of it and the COMMIT's way back: a round trip and more under the one lock, which
pg_stat_statements put at a 3 ms wait per append under 50 concurrent market questions. Sent together,
a failed append must fail the transaction, or the COMMIT behind it would commit the consumer's inbox
claim without the events: hence the error, SQLSTATE JA409, with the stream, the expected version and
the stream's version as JSON in its detail (eventstore.ConcurrencyError is made from it).

Revision ID: 0011
Revises: 0010
"""

import importlib.util
from pathlib import Path

from alembic import op

revision = "0011"
down_revision = "0010"

SIGNATURE = "uuid[], text[], text[], integer[], text[], text[], text[], integer, bigint, text"


def upgrade() -> None:
    op.execute(
        """
        CREATE OR REPLACE FUNCTION jipsa_append(
            ids uuid[], streams text[], types text[], schema_versions integer[], correlations text[],
            payloads text[], metadatas text[], expected integer, lock_key bigint, channel text
        ) RETURNS TABLE (
            "position" bigint, event_id uuid, stream_id text, stream_version integer, event_type text,
            schema_version integer, data jsonb, metadata jsonb, recorded_at timestamptz, fresh boolean
        ) LANGUAGE plpgsql
          SET plan_cache_mode = force_generic_plan
          SET enable_seqscan = off
        AS $$
        #variable_conflict use_column
        DECLARE
            stored uuid[] := '{}';
            current_version integer;
        BEGIN
            -- Before anything is read. The function is volatile, so each statement below takes a
            -- snapshot of its own, after the lock: it sees every append committed before ours.
            PERFORM pg_advisory_xact_lock(lock_key);
            -- Already stored (a retried handler, a re-published message): returned as stored.
            RETURN QUERY
                SELECT e.position, e.event_id, e.stream_id, e.stream_version, e.event_type,
                       e.schema_version, e.data, e.metadata, e.recorded_at, false
                  FROM events e WHERE e.event_id = ANY(ids);
            IF FOUND THEN
                stored := ARRAY(SELECT e.event_id FROM events e WHERE e.event_id = ANY(ids));
                IF cardinality(stored) = cardinality(ids) THEN
                    RETURN;
                END IF;
            END IF;
            IF expected IS NOT NULL THEN  -- the caller sends one stream's events when it expects
                SELECT coalesce(max(e.stream_version), 0) INTO current_version
                  FROM events e WHERE e.stream_id = streams[1];
                IF current_version <> expected THEN
                    RAISE EXCEPTION 'stream % moved: expected version %, found %',
                                    streams[1], expected, current_version
                        USING ERRCODE = 'JA409',
                              DETAIL = json_build_object('stream_id', streams[1], 'expected', expected,
                                                         'actual', current_version)::text;
                END IF;
            END IF;
            -- Positions are allocated in input order (ORDER BY n); the fresh ones carry no payload back,
            -- the caller has it.
            RETURN QUERY
                WITH fresh AS (
                    SELECT * FROM unnest(ids, streams, types, schema_versions, correlations, payloads,
                                         metadatas) WITH ORDINALITY AS x(i, s, t, sv, c, d, m, n)
                     WHERE x.i <> ALL(stored)
                ), heads AS (
                    SELECT f.s, coalesce((SELECT max(e.stream_version) FROM events e WHERE e.stream_id = f.s),
                                         0) AS version
                      FROM (SELECT DISTINCT s FROM fresh) AS f
                ), appended AS (
                    INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version,
                                        correlation_id, data, metadata)
                    SELECT f.i, f.s, h.version + row_number() OVER (PARTITION BY f.s ORDER BY f.n),
                           f.t, f.sv, f.c, f.d::jsonb, f.m::jsonb
                      FROM fresh f JOIN heads h ON h.s = f.s
                     ORDER BY f.n
                    RETURNING position, event_id, stream_id, stream_version, recorded_at
                )
                SELECT a.position, a.event_id, a.stream_id, a.stream_version, NULL::text, NULL::integer,
                       NULL::jsonb, NULL::jsonb, a.recorded_at, true
                  FROM appended a;
            PERFORM pg_notify(channel, '');  -- delivered at commit
        END $$;
        """
    )


def downgrade() -> None:
    """Back to 0008's function with 0009's setting, as those revisions left it."""
    path = Path(__file__).with_name("0008_append_planned_once.py")
    spec = importlib.util.spec_from_file_location("append_planned_once_0008", path)
    assert spec and spec.loader
    previous = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(previous)
    previous.upgrade()
    op.execute(f"ALTER FUNCTION jipsa_append({SIGNATURE}) SET enable_seqscan = off")
