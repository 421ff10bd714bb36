"""The keys that seal what people said (services/platform/sealing.py): one per run of a person's session,
made by the run's first event, deleted when the person asks Jipsa to forget them (모두 잊기). A deleted key
is the erasure: the log keeps the sealed fields, no one can open them again.

This table must not outlive a deletion in a backup: README.md ("What Jipsa remembers") says how an
operator keeps it out of long-lived backups of the log.

Revision ID: 0014
Revises: 0013
"""

from alembic import op

revision = "0014"
down_revision = "0013"


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE person_keys (
            run_id      text        PRIMARY KEY,
            person_id   text        NOT NULL,
            key         bytea       NOT NULL CHECK (length(key) = 32),
            created_at  timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX person_keys_person ON person_keys (person_id);
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE person_keys;")
