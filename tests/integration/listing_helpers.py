"""The listing CSVs, read twice: loaded into the read models for the tools, and read with the csv
module for the independent computations the tests compare the tools with."""

from __future__ import annotations

import csv
from pathlib import Path

from psycopg_pool import AsyncConnectionPool

LISTINGS = Path(__file__).resolve().parents[2] / "infra" / "seed" / "listings"

COMPLEX_COLUMNS = (
    "complex_id name property_type gu dong lat lon completion_ym dong_count household_count area_min_m2"
    " area_max_m2 area_rep_m2 sale_listing_count jeonse_listing_count monthly_listing_count"
    " short_term_listing_count sale_min_manwon sale_max_manwon jeonse_min_manwon jeonse_max_manwon"
    " monthly_rent_min_manwon monthly_rent_max_manwon subway_station subway_line subway_distance_m"
    " subway_walk_min collected_at"
).split()
ONE_ROOM_COLUMNS = (
    "building_type deal_type confirmed_date area_exclusive_m2 area_supply_m2 direction floor_info floor"
    " total_floors deposit_manwon monthly_rent_manwon gu dong lat lon subway_station subway_line"
    " subway_distance_m subway_walk_min collected_at"
).split()


def read_csv(name: str) -> list[dict[str, str]]:
    with (LISTINGS / name).open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _cell(value: str) -> str | None:
    return value or None


async def load_listings(pool: AsyncConnectionPool) -> None:
    """Insert every CSV row; strings go as untyped parameters, so Postgres casts them per column."""
    complexes = [[*(_cell(r[c]) for c in COMPLEX_COLUMNS), _schools(r)] for r in read_csv("complexes.csv")]
    one_rooms = [[r["id"], *(_cell(r[c]) for c in ONE_ROOM_COLUMNS)] for r in read_csv("one_rooms.csv")]
    complex_sql = (
        f"INSERT INTO complexes ({', '.join(COMPLEX_COLUMNS)}, schools)"
        f" VALUES ({', '.join(['%s'] * (len(COMPLEX_COLUMNS) + 1))})"
    )
    one_room_sql = (
        f"INSERT INTO one_rooms (listing_id, {', '.join(ONE_ROOM_COLUMNS)})"
        f" VALUES ({', '.join(['%s'] * (len(ONE_ROOM_COLUMNS) + 1))})"
    )
    async with pool.connection() as conn, conn.cursor() as cur:
        await cur.executemany(complex_sql, complexes)
        await cur.executemany(one_room_sql, one_rooms)


def _schools(row: dict[str, str]) -> list[str]:
    cells = (row["elementary_schools"], row["middle_schools"], row["high_schools"])
    return [s for cell in cells for s in cell.split(";") if s]
