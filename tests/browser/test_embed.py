"""The compact state `?embed=1` in Chromium against `gmtags demo --serve` (SPEC §13's Game panel).

The chat is played through the `/c/{chat}` base URL (SPEC §7.2), as a client with no header
hook plays it; what is asserted is what the frame shows, compared with the proxy's JSON.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import SHOTS

CHAT = "Warden-7"
SYSTEM = {"role": "system", "content": "You are the game master of Lantern Watch."}
LIVE_SECONDS = 2.0
"""SPEC §13: the panel is updated within 2 s after every reply."""
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def gm(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


def complete(url: str, messages: list[dict[str, str]], chat: str = CHAT) -> str:
    """One chat completion through the chat's base URL `/c/{chat}/v1`; the reply's content."""
    response = httpx.post(
        f"{url}/c/{chat}/v1/chat/completions",
        json={"model": "gmtags-demo", "messages": messages},
        headers={"Authorization": "Bearer sk-browser-test"},
        timeout=20,
    )
    assert response.status_code == 200, response.text
    text: str = response.json()["choices"][0]["message"]["content"]
    return text


def chat_json(url: str, chat: str = CHAT) -> dict[str, Any]:
    body: dict[str, Any] = httpx.get(f"{url}/gmtags/api/chats/{chat}", timeout=10).json()
    return body


FIRST = [SYSTEM, user("I set my shoulder to the gate.")]


def play_two(url: str) -> list[str]:
    """The demo's first two turns in `CHAT`; the replies."""
    first = complete(url, FIRST)
    second = complete(url, [*FIRST, gm(first), user("On.")])
    return [first, second]


def embed_url(url: str, node: int | None = None, chat: str = CHAT) -> str:
    return f"{url}/gmtags/chats/{chat}?embed=1" + ("" if node is None else f"&node={node}")


def scroll_width(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth"))


class Parent:
    """A chat client's page on another origin (its own port) holding the embed in an iframe;
    `frame_src` is set once the gmtags server, which must know this origin, is running."""

    def __init__(self) -> None:
        self.frame_src = "about:blank"
        parent = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                html = (
                    "<!doctype html><html><head><title>Chat client</title></head><body>"
                    '<h1>A chat client</h1><iframe id="game" title="Game" width="390"'
                    f' height="700" src="{parent.frame_src}"></iframe></body></html>'
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(html)))
                self.end_headers()
                self.wfile.write(html)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def parent() -> Iterator[Parent]:
    """A chat client's page on its own port, stopped after the test."""
    made = Parent()
    yield made
    made.close()


class TestEmbed:
    def test_phone_fits_and_follows(self, page: Page, serve: Callable[..., str]) -> None:
        """At 390 px the state fits with no horizontal scroll, and a new reply appears within
        2 s without a reload."""
        url = serve("demo", "--serve")
        first, second = play_two(url)
        page.set_viewport_size(PHONE)
        page.goto(embed_url(url))
        page.evaluate("window.notReloaded = true")
        expect(page.get_by_role("heading", name="Bram the Quiet")).to_be_visible()
        expect(page.get_by_role("meter", name="Lamp oil")).to_be_visible()
        expect(page.locator('[data-track="Harm"] .box.marked')).to_have_count(1)
        expect(page.locator("section.party")).to_contain_text("The Watch")
        expect(page.locator("#viewing")).to_have_text("Live · after reply 2")
        for absent in ("header.site", "#timeline", ".node-link", "details.raw"):
            expect(page.locator(absent)).to_have_count(0)
        assert scroll_width(page) <= PHONE["width"]
        SHOTS.mkdir(exist_ok=True)

        started = time.monotonic()
        complete(url, [*FIRST, gm(first), user("On."), gm(second), user("To the ford.")])
        expect(page.locator("#viewing")).to_have_text(
            "Live · after reply 3", timeout=LIVE_SECONDS * 1000
        )
        assert time.monotonic() - started < LIVE_SECONDS + 0.5
        expect(page.locator(".chip")).to_have_text(["Soaked"])
        road = chat_json(url)["state"]["rulesetClocks"]
        washed = next(clock for clock in road if clock["name"] == "Road washed out")
        expect(page.locator('figure.clock[data-clock="Road washed out"] .clock-fill')).to_have_text(
            f"{washed['filled']}/{washed['size']}"
        )
        expect(page.locator("#live")).to_have_text("Updated: after reply 3")
        assert page.evaluate("window.notReloaded === true")
        assert scroll_width(page) <= PHONE["width"]
        page.screenshot(path=str(SHOTS / "embed-phone.png"), full_page=True)

    def test_desktop(self, page: Page, serve: Callable[..., str]) -> None:
        """At 1280 px the same state shows, with no horizontal scroll."""
        url = serve("demo", "--serve")
        first, second = play_two(url)
        complete(url, [*FIRST, gm(first), user("On."), gm(second), user("To the ford.")])
        page.set_viewport_size(DESKTOP)
        page.goto(embed_url(url))
        expect(page.get_by_role("heading", name="Bram the Quiet")).to_be_visible()
        assert scroll_width(page) <= DESKTOP["width"]
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / "embed-desktop.png"), full_page=True)

    def test_pinned_node_and_back_to_now(self, page: Page, serve: Callable[..., str]) -> None:
        """`&node=` shows the state after that reply, says which, and "Back to now" follows
        the chat again, still in the embed."""
        url = serve("demo", "--serve")
        play_two(url)
        one, _ = chat_json(url)["nodes"]
        page.set_viewport_size(PHONE)
        page.goto(embed_url(url, one["id"]))
        expect(page.locator("#viewing")).to_contain_text("Pinned · after reply 1")
        after_one = httpx.get(f"{url}/gmtags/api/chats/{CHAT}/nodes/{one['id']}").json()
        clock = next(c for c in after_one["rulesetClocks"] if c["name"] == "Alarm raised")
        expect(page.locator('figure.clock[data-clock="Alarm raised"] .clock-fill')).to_have_text(
            f"{clock['filled']}/{clock['size']}"
        )
        expect(page.locator('[data-pool="Lamp oil"] .bar-value')).not_to_contain_text("2/")
        assert scroll_width(page) <= PHONE["width"]
        page.get_by_role("link", name="Back to now").click()
        expect(page.locator("#viewing")).to_have_text("Live · after reply 2")
        assert "embed=1" in page.url and "node=" not in page.url

    def test_no_game_yet(self, page: Page, serve: Callable[..., str]) -> None:
        """A chat not played yet is one friendly line; its first turn shows within 2 s."""
        url = serve("demo", "--serve")
        page.set_viewport_size(PHONE)
        page.goto(embed_url(url, chat="fresh-chat"))
        expect(page.locator("#viewing")).to_have_text("No game yet in this chat — play a turn.")
        expect(page.get_by_role("heading", name="Not found")).to_have_count(0)
        complete(url, FIRST, chat="fresh-chat")
        expect(page.locator("#viewing")).to_have_text(
            "Live · after reply 1", timeout=LIVE_SECONDS * 1000
        )
        expect(page.get_by_role("heading", name="Bram the Quiet")).to_be_visible()


class TestEmbedFramed:
    def test_in_an_iframe_from_an_allowed_origin(
        self, page: Page, serve: Callable[..., str], parent: Parent
    ) -> None:
        """A page on an `--allow-origin` origin frames the embed, which shows the state and
        follows the chat inside the frame (the policy refuses nothing: the `page` fixture
        fails on any refusal)."""
        url = serve("demo", "--serve", "--allow-origin", parent.origin)
        first, second = play_two(url)
        parent.frame_src = embed_url(url)
        page.set_viewport_size(PHONE)
        page.goto(parent.origin)
        frame = page.frame_locator("#game")
        expect(frame.get_by_role("heading", name="Bram the Quiet")).to_be_visible()
        expect(frame.locator("#viewing")).to_have_text("Live · after reply 2")
        complete(url, [*FIRST, gm(first), user("On."), gm(second), user("To the ford.")])
        expect(frame.locator("#viewing")).to_have_text(
            "Live · after reply 3", timeout=LIVE_SECONDS * 1000
        )
        inner = next(f for f in page.frames if f.url.startswith(url))
        assert int(inner.evaluate("document.documentElement.scrollWidth")) <= 390

    def test_refused_in_a_frame_from_another_origin(
        self, browser: Browser, serve: Callable[..., str], parent: Parent
    ) -> None:
        """A page on an origin not allowed cannot frame the embed (CSP frame-ancestors)."""
        url = serve("demo", "--serve")
        play_two(url)
        parent.frame_src = embed_url(url)
        context = browser.new_context(viewport=PHONE)
        try:
            opened = context.new_page()
            said: list[str] = []
            opened.on("console", lambda message: said.append(message.text))
            opened.goto(parent.origin)
            opened.wait_for_timeout(500)
            framed = [f for f in opened.frames if f is not opened.main_frame]
            assert framed
            assert framed[0].locator("#state-body").count() == 0
            assert any("frame-ancestors" in text for text in said), said
        finally:
            context.close()
