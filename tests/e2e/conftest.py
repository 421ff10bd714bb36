"""The whole system in-process (gateway, projector, planner, supervisor, teams on real NATS and Postgres)
and one headless Chromium, both shared by a module's tests: starting them is most of the cost.

The browser is Debian's `chromium`, driven by Playwright with its executable path set; nothing is
downloaded. Each test gets a fresh browser context (fresh localStorage, so fresh sessions) and fails if
the page threw an uncaught error.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, async_playwright

from services.platform.db import open_pool
from services.platform.eventstore import EventStore
from services.platform.settings import InfraSettings
from tests.conftest import fresh_database
from tests.integration.gateway_helpers import Gateway
from tests.integration.test_run_end_to_end import jipsa
from tests.servers import ServerUrls

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"
# Every frame the page receives, kept for the test: the page's own code is not changed for testing.
RECORD_FRAMES = """
(() => {
  const Native = window.WebSocket;
  window.__frames = [];
  window.__sockets = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.__sockets.push(this);
      this.addEventListener("message", (event) => window.__frames.push(event.data));
    }
  };
})();
"""


@pytest.fixture(scope="module")
def module_database(server_urls: ServerUrls) -> Iterator[str]:
    with fresh_database(server_urls.database_url, "jipsa_e2e") as url:
        yield url


@pytest.fixture(scope="module")
async def system(
    module_database: str, server_urls: ServerUrls, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Gateway]:
    infra = InfraSettings(
        DATABASE_URL=module_database,
        NATS_URL=server_urls.nats_url,
        JIPSA_NAMESPACE=f"e{uuid.uuid4().hex[:10]}",
        JIPSA_DATA_DIR=tmp_path_factory.mktemp("e2e"),
    )
    pool = await open_pool(module_database)
    try:
        async with jipsa(EventStore(pool), infra) as gateway:
            yield gateway
    finally:
        await pool.close()


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield launched
        await launched.close()


@pytest.fixture
async def page(browser: Browser, system: Gateway) -> AsyncIterator[Page]:
    context = await browser.new_context(
        base_url=system.http_url,
        viewport={"width": 1280, "height": 860},
        locale="ko-KR",
        accept_downloads=True,
    )
    await context.add_init_script(RECORD_FRAMES)
    opened = await context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    await opened.goto("/")
    yield opened
    await context.close()
    assert errors == [], f"the page threw: {errors}"


async def screenshot(page: Page, name: str, *, whole: bool = True) -> None:
    """The page as a person sees it; `whole` grows the window to the conversation's height first (it
    scrolls inside the page, so a plain full-page shot would cut it)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    if whole and size:
        overflow = await page.evaluate(
            "() => { const s = document.querySelector('.scroller'); return s.scrollHeight - s.clientHeight; }"
        )
        await page.set_viewport_size({"width": size["width"], "height": min(5000, size["height"] + overflow)})
    await page.screenshot(path=SCREENSHOTS / f"{name}.png")
    if whole and size:
        await page.set_viewport_size(size)
