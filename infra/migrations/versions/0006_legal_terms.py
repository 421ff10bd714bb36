"""Derived read models of the statute articles: analysed terms and (optional) embeddings.

Both are functions of `legal_articles` rows and are written only by the search team: `legal_terms` by
`jipsa seed` (and by the service's own seeding of a fresh database), `legal_embeddings` by the search
service when an embedding endpoint is configured. Each row says what it was derived from (the
analyser or model version and a hash of the text), so a stale row is recognised and re-derived,
never used; deleting an article deletes what was derived from it.

Revision ID: 0006
Revises: 0005
"""

from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE legal_terms (
            article_id   text   NOT NULL REFERENCES legal_articles ON DELETE CASCADE,
            field        text   NOT NULL CHECK (field IN ('law_title', 'article_title', 'body')),
            analyzer     text   NOT NULL,  -- Analyzer.version: Kiwi, its model, the term rules
            source_hash  text   NOT NULL,  -- of the analysed text
            tokens       text[] NOT NULL,  -- m:morpheme and b:bigram terms, in text order
            PRIMARY KEY (article_id, field)
        );

        CREATE TABLE legal_embeddings (
            article_id   text   NOT NULL REFERENCES legal_articles ON DELETE CASCADE,
            model        text   NOT NULL,  -- the embedding model's name
            source_hash  text   NOT NULL,  -- of the embedded passage
            vector       real[] NOT NULL,
            PRIMARY KEY (article_id, model)
        );
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE legal_embeddings; DROP TABLE legal_terms;")
