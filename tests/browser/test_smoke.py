"""The browser harness itself: Debian's Chromium loads a page `gmtags demo --serve` serves."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page


def test_chromium_reaches_the_demo_server(page: Page, serve: Callable[..., str]) -> None:
    url = serve("demo", "--serve")
    page.goto(f"{url}/healthz")
    assert page.inner_text("body").strip() == "ok"
