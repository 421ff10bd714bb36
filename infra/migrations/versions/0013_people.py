"""People: a pseudonymous identity that owns sessions, what Jipsa remembers of them, and their keys.

- `people` (gateway): a person and the hash of the token that opens them, as `sessions` keeps its own;
  `sessions.person_id` says whose a session is (none: a session of nobody, as before).
- `person_keys`: one AES-GCM key per person at a time (after 모두 잊기, a new one); what the person
  says about themselves is sealed with it in the log (services/platform/sealing.py). Forgetting a
  person deletes the row: the sealed fields are then unreadable everywhere they were copied. A table
  of its own, so a backup can leave it out (README, "Forgetting a person").
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

        CREATE TABLE person_keys (
            key_id     text  PRIMARY KEY,
            person_id  text  NOT NULL,
            aes_key    bytea NOT NULL CHECK (length(aes_key) = 32)
        );
        CREATE UNIQUE INDEX person_keys_person ON person_keys (person_id);

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
        DROP TABLE person_keys;
        DROP INDEX sessions_person;
        ALTER TABLE sessions DROP COLUMN person_id;
        DROP TABLE people;
        """
    )
