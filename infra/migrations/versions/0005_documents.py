"""Generated documents (a lease contract's DOCX and Markdown), owned by the session that asked.

Written by the document service, read by the gateway's download route; events carry only the
artifact id and hash, never the bytes. The id is derived from the content hash and the owning
session, so storing the same content again (a retried step) is a no-op, and two sessions that
happen to produce the same bytes each own their own row.

Revision ID: 0005
Revises: 0004
"""

from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE documents (
            artifact_id  text        PRIMARY KEY,
            session_id   text,
            run_id       text        NOT NULL,
            name         text        NOT NULL,
            media_type   text        NOT NULL,
            sha256       text        NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
            size         integer     NOT NULL CHECK (size >= 0),
            content      bytea       NOT NULL,
            created_at   timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX documents_session ON documents (session_id, created_at);
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE documents;")
