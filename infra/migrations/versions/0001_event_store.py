"""The event store: append-only events, consumer inboxes, checkpoints, dead letters.

Revision ID: 0001
Revises:
"""

from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE events (
            position        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            event_id        uuid        NOT NULL UNIQUE,
            stream_id       text        NOT NULL,
            stream_version  integer     NOT NULL CHECK (stream_version >= 1),
            event_type      text        NOT NULL,
            schema_version  integer     NOT NULL,
            correlation_id  text        NOT NULL,
            data            jsonb       NOT NULL,
            metadata        jsonb       NOT NULL,
            recorded_at     timestamptz NOT NULL DEFAULT now(),
            UNIQUE (stream_id, stream_version)
        );
        CREATE INDEX events_correlation ON events (correlation_id, position);

        -- Append-only, enforced by the database itself, not by politeness of the callers.
        CREATE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'events are append-only: % refused', TG_OP
                USING ERRCODE = 'insufficient_privilege';
        END $$;
        CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
            FOR EACH ROW EXECUTE FUNCTION events_refuse_change();
        CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
            FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change();

        -- What each consumer has handled, written in the same transaction as its effects.
        CREATE TABLE inbox (
            consumer    text        NOT NULL,
            event_id    uuid        NOT NULL,
            handled_at  timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (consumer, event_id)
        );

        -- How far a reader of the log (publisher, projections) has got.
        CREATE TABLE checkpoints (
            name        text        PRIMARY KEY,
            position    bigint      NOT NULL,
            state       jsonb       NOT NULL DEFAULT '{}',
            updated_at  timestamptz NOT NULL DEFAULT now()
        );

        -- Messages a consumer gave up on, for an operator to list and re-drive.
        CREATE TABLE dead_letters (
            id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            consumer    text        NOT NULL,
            subject     text        NOT NULL,
            event_id    text,
            payload     bytea       NOT NULL,
            headers     jsonb       NOT NULL DEFAULT '{}',
            error       text        NOT NULL,
            deliveries  integer     NOT NULL,
            parked_at   timestamptz NOT NULL DEFAULT now(),
            replayed_at timestamptz
        );
        CREATE INDEX dead_letters_open ON dead_letters (parked_at) WHERE replayed_at IS NULL;
        """
    )


def downgrade() -> None:
    op.execute(
        """
        DROP TABLE dead_letters;
        DROP TABLE checkpoints;
        DROP TABLE inbox;
        DROP TABLE events;
        DROP FUNCTION events_refuse_change();
        """
    )
