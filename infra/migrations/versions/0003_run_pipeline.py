"""The run pipeline's own tables: gateway sessions, supervisor timers, and reading a session's events.

- `sessions` (gateway): a session and the hash of the token its WebSocket and REST calls present.
  Only the hash is kept, so a leaked table does not leak a way in.
- `supervisor_timers` (supervisor): the next deadline a run is waiting on (a step's timeout, a
  retry's backoff), written in the same transaction as the decision that set them, so a waiting run holds
  no worker and a supervisor that restarts finds every deadline again. Replicas claim due timers
  with FOR UPDATE SKIP LOCKED.
- `events_session`: the gateway follows one session's events in log order (live and on resume).

Revision ID: 0003
Revises: 0002
"""

from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE sessions (
            session_id  text        PRIMARY KEY,
            token_hash  text        NOT NULL,
            title       text,
            created_at  timestamptz NOT NULL DEFAULT now()
        );

        CREATE TABLE supervisor_timers (
            run_id  text        PRIMARY KEY,
            due_at  timestamptz NOT NULL  -- the earliest deadline the run waits on
        );
        CREATE INDEX supervisor_timers_due ON supervisor_timers (due_at);

        CREATE INDEX events_session ON events ((metadata->>'session_id'), position);
        """
    )


def downgrade() -> None:
    op.execute(
        """
        DROP INDEX events_session;
        DROP TABLE supervisor_timers;
        DROP TABLE sessions;
        """
    )
