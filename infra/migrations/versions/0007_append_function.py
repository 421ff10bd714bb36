"""An append in one round trip: `jipsa_append` takes the lock, finds what is stored, checks the expected
version, inserts and notifies, all in one call (services/platform/eventstore.py says why each step).

It was four statements from the client, each a round trip made while holding the one lock every append
waits on, so the lock was held for the network's time, not the database's.

Revision ID: 0007
Revises: 0006
"""

from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION jipsa_append(
            ids uuid[], streams text[], types text[], schema_versions integer[], correlations text[],
            payloads text[], metadatas text[], expected integer, lock_key bigint, channel text
        ) RETURNS TABLE (
            "position" bigint, event_id uuid, stream_id text, stream_version integer, event_type text,
            schema_version integer, data jsonb, metadata jsonb, recorded_at timestamptz, fresh boolean
        ) LANGUAGE plpgsql AS $$
        #variable_conflict use_column
        DECLARE
            stored integer;
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
            GET DIAGNOSTICS stored = ROW_COUNT;
            IF stored = cardinality(ids) THEN
                RETURN;
            END IF;
            IF expected IS NOT NULL THEN  -- the caller sends one stream's events when it expects
                SELECT coalesce(max(e.stream_version), 0) INTO current_version
                  FROM events e WHERE e.stream_id = streams[1];
                IF current_version <> expected THEN  -- a row without position says: the stream moved
                    RETURN QUERY SELECT NULL::bigint, NULL::uuid, streams[1], current_version, NULL::text,
                                        NULL::integer, NULL::jsonb, NULL::jsonb, NULL::timestamptz, false;
                    RETURN;
                END IF;
            END IF;
            -- Positions are allocated in input order (ORDER BY n); the fresh ones carry no payload back,
            -- the caller has it.
            RETURN QUERY
                WITH appended AS (
                    INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version,
                                        correlation_id, data, metadata)
                    SELECT f.i, f.s,
                           coalesce(v.version, 0) + row_number() OVER (PARTITION BY f.s ORDER BY f.n),
                           f.t, f.sv, f.c, f.d::jsonb, f.m::jsonb
                      FROM (SELECT * FROM unnest(ids, streams, types, schema_versions, correlations,
                                                 payloads, metadatas)
                                          WITH ORDINALITY AS x(i, s, t, sv, c, d, m, n)
                             WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.event_id = x.i)) AS f
                      LEFT JOIN LATERAL (SELECT max(e.stream_version) AS version
                                           FROM events e WHERE e.stream_id = f.s) AS v ON true
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
    op.execute(
        "DROP FUNCTION jipsa_append(uuid[], text[], text[], integer[], text[], text[], text[], integer,"
        " bigint, text)"
    )
