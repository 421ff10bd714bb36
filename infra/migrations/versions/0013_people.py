"""People: a pseudonymous identity that owns sessions, what Jipsa remembers of them, and their keys.

- `people` (gateway): a person and the hash of the token that opens them, as `sessions` keeps its own;
  `sessions.person_id` says whose a session is (none: a session of nobody, as before).
- `memories` (projector): per person, the items the memory fold made of their events.
- `events_person`: the planner and the memory fold read one person's events in log order.

Revision ID: 0013
Revises: 0012
"""

from alembic import op

revision = "0013"
down_revision = "0012"


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE people (
            person_id   text        PRIMARY KEY,
            token_hash  text        NOT NULL UNIQUE,
            created_at  timestamptz NOT NULL DEFAULT now()
        );
        ALTER TABLE sessions ADD COLUMN person_id text REFERENCES people;
        CREATE INDEX sessions_person ON sessions (person_id) WHERE person_id IS NOT NULL;

        CREATE TABLE memories (
            person_id      text    PRIMARY KEY,
            remembering    boolean NOT NULL,
            items          jsonb   NOT NULL,
            forgotten_at   timestamptz,
            last_position  bigint  NOT NULL
        );

        CREATE INDEX events_person ON events ((metadata->>'person_id'), position)
            WHERE metadata->>'person_id' IS NOT NULL;
        """
    )


def downgrade() -> None:
    op.execute(
        """
        DROP INDEX events_person;
        DROP TABLE memories;
        DROP INDEX sessions_person;
        ALTER TABLE sessions DROP COLUMN person_id;
        DROP TABLE people;
        """
    )
