"""`jipsa seed`: load the shipped data (infra/seed/) into the search team's read models.

Each table is synchronised with its file in one transaction: rows are upserted by key, but only
rewritten when a value differs (`IS DISTINCT FROM`), and rows the file no longer has are deleted. So
re-seeding changes nothing, and rows other tables point at (real_deals -> complexes) are never
deleted and re-inserted, which a delete-then-insert reload would need to cascade through.
Empty CSV cells become NULL; `schools` joins the three school columns of the listing snapshot.

After the tables, the derived read model `legal_terms` (the analysed terms of each article, see
services/search/legal/terms.py) is brought up to date: only rows missing, made by another analyser
version or from another text are derived again, through the terms memo under the data folder, so
re-seeding analyses nothing and seeding a fresh database copies terms instead of running Kiwi.
"""

from __future__ import annotations

import asyncio
import csv
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from psycopg import AsyncConnection, sql
from psycopg.rows import dict_row
from rich.console import Console
from rich.progress import Progress

from services.platform.runtime import load_infra_settings
from services.platform.settings import REPO_ROOT, InfraSettings
from services.search.legal.articles import load_articles
from services.search.legal.terms import FIELDS, TermsMemo, analyse_texts, field_texts, text_hash
from services.search.legal.tokens import Analyzer

SEED_DIR = REPO_ROOT / "infra" / "seed"
Convert = Callable[[str], Any]


def _int(cell: str) -> int:
    return int(float(cell))  # a few exports write counts as 12.0


@dataclass(frozen=True)
class TableSpec:
    table: str
    key: str
    path: Path
    columns: dict[str, Convert]  # column -> how a non-empty cell becomes its value
    renamed: dict[str, str]  # column -> the file's field, where the names differ

    def rows(self) -> list[tuple[Any, ...]]:
        return [tuple(self._value(record, c) for c in self.columns) for record in _records(self.path)]

    def _value(self, record: dict[str, Any], column: str) -> Any:
        if column == "schools":
            return _schools(record)
        raw = record.get(self.renamed.get(column, column))
        if raw is None or raw == "":
            return None
        return self.columns[column](raw) if isinstance(raw, str) else raw


TABLES = (
    TableSpec(
        table="legal_articles",
        key="article_id",
        path=SEED_DIR / "legal" / "corpus.jsonl",
        columns={
            **dict.fromkeys(["article_id", "law_title", "doc_type", "category", "law_number"], str),
            "enforcement_date": date.fromisoformat,
            **dict.fromkeys(["article_number", "article_title", "chapter"], str),
            **dict.fromkeys(["is_supplementary", "is_deleted", "is_tenant_protection"], bool),
            "text": str,
        },
        renamed={"article_id": "id"},
    ),
    TableSpec(
        table="complexes",
        key="complex_id",
        path=SEED_DIR / "listings" / "complexes.csv",
        columns={
            **dict.fromkeys(["complex_id", "name", "property_type", "gu", "dong"], str),
            **dict.fromkeys(["lat", "lon"], float),
            "completion_ym": str,
            **dict.fromkeys(["dong_count", "household_count"], _int),
            **dict.fromkeys(["area_min_m2", "area_max_m2", "area_rep_m2"], float),
            **dict.fromkeys(
                [f"{deal}_listing_count" for deal in ("sale", "jeonse", "monthly", "short_term")], _int
            ),
            **dict.fromkeys(
                [f"{p}_{e}_manwon" for p in ("sale", "jeonse", "monthly_rent") for e in ("min", "max")], _int
            ),
            **dict.fromkeys(["subway_station", "subway_line"], str),
            **dict.fromkeys(["subway_distance_m", "subway_walk_min"], _int),
            "schools": list,
            "collected_at": datetime.fromisoformat,
        },
        renamed={},
    ),
    TableSpec(
        table="one_rooms",
        key="listing_id",
        path=SEED_DIR / "listings" / "one_rooms.csv",
        columns={
            "listing_id": _int,
            **dict.fromkeys(["building_type", "deal_type"], str),
            "confirmed_date": date.fromisoformat,
            **dict.fromkeys(["area_exclusive_m2", "area_supply_m2"], float),
            **dict.fromkeys(["direction", "floor_info"], str),
            **dict.fromkeys(["floor", "total_floors", "deposit_manwon", "monthly_rent_manwon"], _int),
            **dict.fromkeys(["gu", "dong"], str),
            **dict.fromkeys(["lat", "lon"], float),
            **dict.fromkeys(["subway_station", "subway_line"], str),
            **dict.fromkeys(["subway_distance_m", "subway_walk_min"], _int),
            "collected_at": datetime.fromisoformat,
        },
        renamed={"listing_id": "id"},
    ),
)


def _records(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8", newline="") as f:
        if path.suffix == ".jsonl":
            yield from (json.loads(line) for line in f if line.strip())
        else:
            yield from csv.DictReader(f)


def _schools(record: dict[str, Any]) -> list[str]:
    columns = ("elementary_schools", "middle_schools", "high_schools")
    return [school for c in columns for school in (record.get(c) or "").split(";") if school]


async def sync_table(conn: AsyncConnection, spec: TableSpec, rows: list[tuple[Any, ...]]) -> int:
    """Make the table hold exactly `rows`, in one transaction; returns how many rows were written."""
    cols = list(spec.columns)
    table, key = sql.Identifier(spec.table), sql.Identifier(spec.key)
    names = sql.SQL(", ").join(map(sql.Identifier, cols))
    excluded = sql.SQL(", ").join(sql.SQL("EXCLUDED.{}").format(sql.Identifier(c)) for c in cols)
    current = sql.SQL(", ").join(sql.SQL("{}.{}").format(table, sql.Identifier(c)) for c in cols)
    upsert = sql.SQL(
        "INSERT INTO {table} ({names}) VALUES ({params}) ON CONFLICT ({key}) DO UPDATE SET ({names}) = "
        "ROW({excluded}) WHERE ({current}) IS DISTINCT FROM ({excluded})"
    ).format(
        table=table,
        names=names,
        params=sql.SQL(", ").join(sql.Placeholder() * len(cols)),
        key=key,
        excluded=excluded,
        current=current,
    )
    keys = [row[cols.index(spec.key)] for row in rows]
    async with conn.transaction(), conn.cursor() as cur:
        await cur.executemany(upsert, rows)
        written = cur.rowcount
        await cur.execute(sql.SQL("DELETE FROM {} WHERE NOT ({} = ANY(%s))").format(table, key), (keys,))
        return max(written, 0) + max(cur.rowcount, 0)


def terms_memo(data_dir: Path | None = None) -> TermsMemo:
    """The terms memo of this data folder (JIPSA_DATA_DIR, default .data/)."""
    return TermsMemo((data_dir or InfraSettings().data_dir) / "cache")


async def sync_legal_terms(
    conn: AsyncConnection, analyzer: Analyzer, memo: TermsMemo | None = None
) -> tuple[int, int]:
    """Make `legal_terms` hold the current analysis of every article field; returns (rows, written).
    Checking a current table costs a hash per field (milliseconds); Kiwi runs only for what is stale
    and not in the memo."""
    articles = await load_articles(conn)
    wanted = {(a.article_id, f): text for a in articles for f, text in field_texts(a).items()}
    cursor = await conn.cursor(row_factory=dict_row).execute(
        "SELECT article_id, field, analyzer, source_hash FROM legal_terms"
    )
    have = {(r["article_id"], r["field"]): (r["analyzer"], r["source_hash"]) for r in await cursor.fetchall()}
    stale = [k for k, text in wanted.items() if have.get(k) != (analyzer.version, text_hash(text))]
    tokens = await asyncio.to_thread(analyse_texts, [wanted[k] for k in stale], analyzer, memo)
    rows = [(*k, analyzer.version, text_hash(wanted[k]), t) for k, t in zip(stale, tokens, strict=True)]
    async with conn.transaction(), conn.cursor() as cur:
        await cur.executemany(
            "INSERT INTO legal_terms (article_id, field, analyzer, source_hash, tokens) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (article_id, field) DO UPDATE SET "
            "analyzer = EXCLUDED.analyzer, source_hash = EXCLUDED.source_hash, tokens = EXCLUDED.tokens",
            rows,
        )
        # Articles gone from the corpus took their rows with them (ON DELETE CASCADE); a field no
        # longer indexed is dropped here.
        await cur.execute("DELETE FROM legal_terms WHERE NOT (field = ANY(%s))", (list(FIELDS),))
        return len(wanted), len(rows) + max(cur.rowcount, 0)


async def seed_all(
    conn: AsyncConnection[Any],
    on_table: Callable[[str, int, int], None] | None = None,
    memo: TermsMemo | None = None,
) -> dict[str, int]:
    """Seed every read model, then the derived `legal_terms`; returns table -> rows it now holds.
    `on_table(table, rows, written)` is called after each table (the CLI's progress bar). `memo`
    defaults to the data folder's terms memo."""
    counts: dict[str, int] = {}
    for spec in TABLES:
        rows = await asyncio.to_thread(spec.rows)
        written = await sync_table(conn, spec, rows)
        counts[spec.table] = len(rows)
        if on_table is not None:
            on_table(spec.table, len(rows), written)
    terms, written = await sync_legal_terms(conn, Analyzer(), memo or terms_memo())
    counts["legal_terms"] = terms
    if on_table is not None:
        on_table("legal_terms", terms, written)
    return counts


def seed(
    molit: Annotated[
        list[Path] | None,
        typer.Option(help="실거래가 export(s) from rt.molit.go.kr to import after the snapshot"),
    ] = None,
) -> None:
    """Load the statute corpus and the listing snapshot into the search read models (idempotent)."""
    asyncio.run(_seed(molit or []))


async def _seed(molit_files: list[Path]) -> None:
    from services.search.molit import import_molit

    console = Console()
    settings = load_infra_settings()
    conn = await AsyncConnection.connect(settings.database_url, row_factory=dict_row)
    async with conn:
        with Progress(console=console) as progress:
            task = progress.add_task("seeding", total=len(TABLES) + 1)  # + the derived legal_terms

            def done(table: str, rows: int, written: int) -> None:
                progress.update(task, advance=1, description=table)
                console.print(f"{table}: {rows} rows ({written} written)")

            await seed_all(conn, done, terms_memo(settings.data_dir))
        for path in molit_files:
            report = await import_molit(conn, path)
            console.print(f"{path.name}: {report.model_dump_json()}")
