"""The large jsonb documents are compressed with lz4 where the server has it, not pglz.

A market question's run stores a few documents of 12-31 kB (its steps' inputs and results, its answer),
in `events.data` and again in `final_states`; every one is compressed when written and decompressed by
each reader (the relay, the projector, the gateway, the supervisor). lz4 does both in a fraction of
pglz's time: under `tests.bench.compare`'s 50 concurrent market questions, six batches of 200 runs each
way, alternating, Postgres spent 19.8-20.9 ms of CPU per run with lz4 against 19.9-23.5 with pglz
(means 20.3 and 22.4). Values written before keep their method; both stay readable.

A server built without lz4 keeps pglz: the migration asks which methods it offers.

Revision ID: 0010
Revises: 0009
"""

from alembic import op

revision = "0010"
down_revision = "0009"

COLUMNS = {"events": ("data",), "final_states": ("step_results", "response")}


def _set_compression(method: str) -> str:
    return "; ".join(
        f"ALTER TABLE {table} ALTER COLUMN {column} SET COMPRESSION {method}"
        for table, columns in COLUMNS.items()
        for column in columns
    )


def upgrade() -> None:
    op.execute(
        f"""
        DO $$ BEGIN
            IF 'lz4' = ANY (SELECT unnest(enumvals) FROM pg_settings
                             WHERE name = 'default_toast_compression') THEN
                {_set_compression("lz4")};
            END IF;
        END $$
        """
    )


def downgrade() -> None:
    op.execute(_set_compression("default"))
