"""Import the government's 실거래가 exports (국토교통부 실거래가 공개시스템, rt.molit.go.kr) into
`real_deals`, matched to the snapshot's complexes.

The exports are CSV (UTF-8 or CP949) with explanatory rows above the table. Sale files (아파트/오피스텔
매매) carry 거래금액(만원) and 해제사유발생일; lease files (전월세) carry 전월세구분, 보증금(만원) and
월세금(만원). Money has thousands separators.

Idempotency: `deal_key` is a hash of the normalised deal (kind, place, name, area, date, amounts,
floor) without its cancellation, so importing a newer export in which a deal got cancelled updates
that deal's flag instead of adding a second row. Cancelled deals are kept, flagged, and left out of
every statistic. Two rows of one file with the same key are one deal listed twice: the second is
skipped as a duplicate.

Matching: same 구 and 동 and the same normalised name; failing that, a unique name in the 구 (the
snapshot's dong boundaries are simplified, see infra/seed/listings/README.md); failing that, a unique
prefix match in the 동 ("래미안대치팰리스1단지" ↔ "래미안대치팰리스"). When a name fits an apartment
and an officetel complex alike, the file's own kind decides. Anything else keeps complex_id NULL.
"""

from __future__ import annotations

import asyncio
import csv
import hashlib
import io
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row, scalar_row
from pydantic import BaseModel

NAME_COLUMNS = ("단지명", "건물명")


class RowSkipped(ValueError):
    """A row that is not a deal this importer can store; the message is the reason reported."""


@dataclass(frozen=True)
class DealRow:
    deal_kind: str  # sale | jeonse | monthly
    gu: str
    dong: str | None
    lot: str  # 번지
    complex_name: str
    area_m2: float
    contract_date: date
    price_manwon: int | None
    deposit_manwon: int | None
    monthly_manwon: int | None
    floor: int | None
    built_year: int | None
    cancelled: bool

    @property
    def deal_key(self) -> str:
        parts = (
            self.deal_kind,
            self.gu,
            self.dong or "",
            self.lot,
            normalise_name(self.complex_name),
            f"{self.area_m2:.2f}",
            self.contract_date.isoformat(),
            *(str(v) for v in (self.price_manwon, self.deposit_manwon, self.monthly_manwon, self.floor)),
        )
        return hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]


class ImportReport(BaseModel):
    rows_read: int = 0
    imported: int = 0  # new deals written
    already_present: int = 0  # deals a previous import wrote (their flag and match refreshed)
    cancelled: int = 0
    matched: int = 0
    unmatched: int = 0
    skipped: dict[str, int] = {}  # reason -> rows
    property_type: str | None = None  # apartment | officetel, read from the rows above the table


def decode(raw: bytes) -> str:
    """The portal has exported both UTF-8 (with BOM) and CP949 over the years."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("cp949")


def read_table(text: str) -> tuple[str, list[dict[str, str]]]:
    """The rows above the header (as one text) and the table's rows as dicts keyed by header."""
    rows = list(csv.reader(io.StringIO(text)))
    for i, row in enumerate(rows):
        cells = [c.strip() for c in row]
        if "시군구" in cells and "계약년월" in cells:
            preamble = "\n".join(",".join(r) for r in rows[:i])
            return preamble, [dict(zip(cells, (c.strip() for c in r), strict=False)) for r in rows[i + 1 :]]
    raise ValueError("no header row with 시군구 and 계약년월: not a 실거래가 export")


def property_type_of(preamble: str) -> str | None:
    if "오피스텔" in preamble:
        return "officetel"
    return "apartment" if "아파트" in preamble else None


def amount(text: str | None) -> int | None:
    """'123,500' -> 123500; blank or '-' -> None."""
    cleaned = (text or "").replace(",", "").strip()
    if cleaned in ("", "-"):
        return None
    if not cleaned.lstrip("-").isdigit():
        raise RowSkipped(f"bad amount: {text}")
    return int(cleaned)


def _column(record: dict[str, str], prefix: str) -> str:
    """The value of the first column whose header starts with `prefix` (전용면적(㎡) or (m²))."""
    return next((v for k, v in record.items() if k.startswith(prefix)), "")


def parse_row(record: dict[str, str]) -> DealRow:
    place = record.get("시군구", "").split()
    if not place:
        raise RowSkipped("not a deal row")
    gu = next((p for p in place if p.endswith("구")), None)
    if gu is None:
        raise RowSkipped("no 구 in 시군구")
    after_gu = place[place.index(gu) + 1 :]
    name = next((record[c] for c in NAME_COLUMNS if record.get(c)), "")
    if not name:
        raise RowSkipped("no complex name")
    kind, price, deposit, monthly = _deal_terms(record)
    return DealRow(
        deal_kind=kind,
        gu=gu,
        dong=after_gu[0] if after_gu else None,
        lot=record.get("번지", ""),
        complex_name=name,
        area_m2=_area(_column(record, "전용면적")),
        contract_date=_contract_date(record.get("계약년월", ""), record.get("계약일", "")),
        price_manwon=price,
        deposit_manwon=deposit,
        monthly_manwon=monthly,
        floor=amount(record.get("층")),
        built_year=amount(record.get("건축년도")),
        cancelled=record.get("해제사유발생일", "").strip() not in ("", "-"),
    )


def _deal_terms(record: dict[str, str]) -> tuple[str, int | None, int | None, int | None]:
    lease = record.get("전월세구분", "").strip()
    if not lease:
        price = amount(_column(record, "거래금액"))
        if price is None:
            raise RowSkipped("no 거래금액")
        return "sale", price, None, None
    deposit, monthly = amount(_column(record, "보증금")), amount(_column(record, "월세"))
    if deposit is None:
        raise RowSkipped("no 보증금")
    if lease == "전세":
        return "jeonse", None, deposit, monthly or 0
    if lease == "월세":
        return "monthly", None, deposit, monthly or 0
    raise RowSkipped(f"unknown 전월세구분: {lease}")


def _area(text: str) -> float:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        raise RowSkipped(f"bad 전용면적: {text}") from None


def _contract_date(year_month: str, day: str) -> date:
    try:
        ym = year_month.strip()
        return date(int(ym[:4]), int(ym[4:6]), int(day))
    except ValueError:
        raise RowSkipped(f"bad contract date: {year_month} {day}") from None


def normalise_name(name: str) -> str:
    """'래미안 대치팰리스(주상복합) 아파트' -> '래미안대치팰리스'.

    Brackets with their content, spaces, punctuation and a trailing 아파트 go."""
    text = re.sub(r"\([^)]*\)", "", unicodedata.normalize("NFKC", name)).lower()
    text = re.sub(r"[^0-9a-z가-힣]", "", text)
    return text.removesuffix("아파트") or text


@dataclass(frozen=True)
class Candidate:
    complex_id: str
    gu: str
    dong: str
    name: str  # normalised
    property_type: str


def match_complex(row: DealRow, in_gu: list[Candidate], kind: str | None) -> str | None:
    """The complex a deal belongs to, by the rules in the module doc, or None."""
    name = normalise_name(row.complex_name)
    same_dong = [c for c in in_gu if c.dong == row.dong]
    for pool in (
        [c for c in same_dong if c.name == name],
        [c for c in in_gu if c.name == name],
        [c for c in same_dong if c.name and (c.name.startswith(name) or name.startswith(c.name))],
    ):
        if len(pool) > 1 and kind:
            pool = [c for c in pool if c.property_type == kind]
        if len(pool) == 1:
            return pool[0].complex_id
        if pool:
            return None  # ambiguous: a wrong match is worse than none
    return None


async def _candidates(conn: AsyncConnection, gus: set[str]) -> dict[str, list[Candidate]]:
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "SELECT complex_id, gu, dong, name, property_type FROM complexes WHERE gu = ANY(%s)", [list(gus)]
        )
        by_gu: dict[str, list[Candidate]] = defaultdict(list)
        for r in await cur.fetchall():
            c = Candidate(r["complex_id"], r["gu"], r["dong"], normalise_name(r["name"]), r["property_type"])
            by_gu[c.gu].append(c)
    return by_gu


UPSERT = """
INSERT INTO real_deals (deal_key, deal_kind, complex_id, gu, dong, complex_name, area_m2, contract_date,
                        price_manwon, deposit_manwon, monthly_manwon, floor, built_year, cancelled)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (deal_key) DO UPDATE SET cancelled = EXCLUDED.cancelled, complex_id = EXCLUDED.complex_id
RETURNING (xmax = 0) AS inserted
"""


async def import_molit(conn: AsyncConnection[Any], path: Path | str) -> ImportReport:
    """Read one export, write its deals in one transaction, and say what happened to every row."""
    preamble, records = read_table(decode(await asyncio.to_thread(Path(path).read_bytes)))
    kind = property_type_of(preamble)
    report = ImportReport(property_type=kind)
    skipped: Counter[str] = Counter()
    deals: dict[str, DealRow] = {}
    for record in records:
        if not any(record.values()):
            continue  # blank lines between or after the table are not rows
        report.rows_read += 1
        try:
            deal = parse_row(record)
        except RowSkipped as why:
            skipped[str(why)] += 1
            continue
        if deal.deal_key in deals:
            skipped["duplicate row in file"] += 1
            continue
        deals[deal.deal_key] = deal
    report.skipped = dict(skipped)
    async with conn.transaction():
        candidates = await _candidates(conn, {d.gu for d in deals.values()})
        for key, deal in deals.items():
            complex_id = match_complex(deal, candidates.get(deal.gu, []), kind)
            await _record(conn, report, key, deal, complex_id)
    return report


async def _record(
    conn: AsyncConnection, report: ImportReport, key: str, d: DealRow, complex_id: str | None
) -> None:
    values = (
        key,
        d.deal_kind,
        complex_id,
        d.gu,
        d.dong,
        d.complex_name,
        d.area_m2,
        d.contract_date,
        d.price_manwon,
        d.deposit_manwon,
        d.monthly_manwon,
        d.floor,
        d.built_year,
        d.cancelled,
    )
    async with conn.cursor(row_factory=scalar_row) as cur:
        inserted = await (await cur.execute(UPSERT, values)).fetchone()
    assert inserted is not None  # an upsert's RETURNING has its row whether it inserted or updated
    report.imported += inserted
    report.already_present += not inserted
    report.cancelled += d.cancelled
    report.matched += complex_id is not None
    report.unmatched += complex_id is None
