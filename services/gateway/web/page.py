"""The web page at `/` and the map page at `/map`: static files from `static/`, no build step, nothing
fetched from elsewhere.

`index.html` is served with `no-cache` so a new deployment is picked up at once; the modules and the
stylesheet are revalidated by their ETag (StaticFiles sends one), which keeps reloads cheap.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).parent / "static"


def mount_page(app: FastAPI) -> None:
    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/map", include_in_schema=False)
    async def map_page() -> FileResponse:
        return FileResponse(STATIC / "map.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
