"""`jipsa_append` reads the log by index, whatever the log's size when its plans were made.

0008 keeps the function's plans for the connection's life (generic plans). A plan made while `events`
was small could look up the stored event ids with a sequential scan, the cheaper plan for a few pages,
and go on scanning the whole log at every append as it grew: auto_explain showed `Seq Scan on events`
for `event_id = ANY(ids)` in a fresh database under `tests.bench.compare`, 69 buffers a lookup over
1,400 appends (pg_stat_statements), where an index lookup reads 2. Every statement of the function is a
lookup by key, so no sequential scan is ever the plan it wants.

Revision ID: 0009
Revises: 0008
"""

from alembic import op

revision = "0009"
down_revision = "0008"

SIGNATURE = "uuid[], text[], text[], integer[], text[], text[], text[], integer, bigint, text"


def upgrade() -> None:
    op.execute(f"ALTER FUNCTION jipsa_append({SIGNATURE}) SET enable_seqscan = off")


def downgrade() -> None:
    op.execute(f"ALTER FUNCTION jipsa_append({SIGNATURE}) RESET enable_seqscan")
