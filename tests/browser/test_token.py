"""`--token` in a real browser (SPEC §11): a page asks for the token once, then opens."""

from __future__ import annotations

import json
from collections.abc import Callable

from playwright.sync_api import Page


def test_a_page_asks_once_and_then_every_page_opens(page: Page, serve: Callable[..., str]) -> None:
    url = serve("demo", "--serve", "--token", "open-sesame")
    page.goto(f"{url}/gmtags/")
    assert page.get_by_label("Token").is_visible()
    page.get_by_label("Token").fill("wrong")
    page.get_by_role("button", name="Open").click()
    assert page.get_by_role("alert").inner_text() == "That token is not right."
    page.get_by_label("Token").fill("open-sesame")
    page.get_by_role("button", name="Open").click()
    page.wait_for_url(f"{url}/gmtags/")
    assert page.get_by_label("Token").count() == 0
    page.goto(f"{url}/gmtags/api/chats")
    listed = json.loads(page.inner_text("body"))
    assert [chat["chat"] for chat in listed] == ["lantern-watch"]  # the demo's chat
    cookies = page.context.cookies()
    assert [c["name"] for c in cookies] == ["gmtags_token"] and cookies[0]["httpOnly"]
