"""Read models the projector folds from the log: todos, final states, session history.

Unlike `events`, these tables are derived and may be updated, deleted and
rebuilt at will: the log is the truth, these are its current reading. The
projector records how far it has read in `checkpoints` under 'projections',
in the same transaction as the rows it writes. No column holds a wall-clock
time of writing, so a rebuild produces exactly the rows of the live build.

Revision ID: 0002
Revises: 0001
"""

from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.execute(
        """
        -- The todo of a run (one row) and its steps (one row each), as the person watches them.
        CREATE TABLE todos (
            run_id          text    PRIMARY KEY,
            session_id      text,
            total_steps     integer NOT NULL,
            finished_steps  integer NOT NULL,
            progress_pct    integer NOT NULL CHECK (progress_pct BETWEEN 0 AND 100),
            last_position   bigint  NOT NULL
        );
        CREATE TABLE todo_steps (
            run_id        text    NOT NULL REFERENCES todos ON DELETE CASCADE,
            step_id       text    NOT NULL,
            ordinal       integer NOT NULL,
            team          text    NOT NULL,
            task          text    NOT NULL,
            depends_on    text[]  NOT NULL,
            status        text    NOT NULL
                CHECK (status IN ('pending', 'in_progress', 'completed', 'failed', 'skipped')),
            attempt       integer NOT NULL,
            started_at    timestamptz,
            completed_at  timestamptz,
            duration_ms   double precision,
            summary       text,
            error         text,
            PRIMARY KEY (run_id, step_id)
        );

        -- Per run: what was asked, planned, produced and answered.
        CREATE TABLE final_states (
            run_id            text    PRIMARY KEY,
            session_id        text,
            query             text,
            require_approval  boolean NOT NULL,
            status            text    NOT NULL,
            intent            jsonb,
            plan              jsonb,
            step_results      jsonb   NOT NULL,
            response          jsonb,
            errors            jsonb   NOT NULL,
            created_at        timestamptz,
            planned_at        timestamptz,
            completed_at      timestamptz,
            total_ms          double precision,
            llm_calls         integer NOT NULL,
            llm_fallbacks     integer NOT NULL,
            tool_decisions    integer NOT NULL,
            last_position     bigint  NOT NULL
        );

        -- A session's runs, newest first for the gateway's history list.
        CREATE TABLE session_runs (
            session_id  text NOT NULL,
            run_id      text NOT NULL,
            query       text,
            status      text NOT NULL,
            created_at  timestamptz,
            PRIMARY KEY (session_id, run_id)
        );
        CREATE INDEX session_runs_recent ON session_runs (session_id, created_at DESC);

        INSERT INTO checkpoints (name, position) VALUES ('projections', 0);
        """
    )


def downgrade() -> None:
    op.execute(
        """
        DELETE FROM checkpoints WHERE name = 'projections';
        DROP TABLE session_runs;
        DROP TABLE final_states;
        DROP TABLE todo_steps;
        DROP TABLE todos;
        """
    )
