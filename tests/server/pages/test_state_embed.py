"""gmtags/server/pages/state_embed.py: the compact state page `?embed=1` (SPEC §13's Game panel)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path

import httpx
import pytest

from gmtags.history.fingerprint import fingerprint
from gmtags.history.store import Node, NodeKind
from gmtags.server.demo_upstream import ScriptedUpstream
from gmtags.server.pages.state_embed import NO_GAME, reply_words
from tests.server.pages.test_state_api import SYSTEM, Served, gm, nodes, user
from tests.server.pages.test_state_page import played, served_with


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    yield from served_with(tmp_path, ScriptedUpstream())


def node(ident: int, parent: int | None, kind: NodeKind = "turn") -> Node:
    return Node(ident, "c", parent, kind, 0, "", "", fingerprint(""))


@dataclass
class Page:
    """One embed page's HTML, with what a reader finds in it."""

    html: str
    links: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.links = [
            href.replace("&amp;", "&") for href in re.findall(r'href="([^"]*)"', self.html)
        ]

    def text_of(self, ident: str) -> str:
        found = re.search(f'<p id="{ident}"[^>]*>(.*?)</p>', self.html)
        assert found is not None
        return unescape(re.sub(r"<[^>]+>", "", found.group(1)))


def embed(served: Served, query: str = "", chat: str = "road") -> Page:
    response = served.get(f"/gmtags/chats/{chat}?embed=1{query}")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/html")
    return Page(response.text)


class TestReplyWords:
    def test_chain(self) -> None:
        """Replies are counted down the tree, the first being reply 1."""
        chain = [node(1, None), node(2, 1), node(3, 2)]
        assert reply_words(chain, 3) == "reply 3"
        assert reply_words(chain, 1) == "reply 1"
        assert reply_words(chain, None) == "the chat's start"

    def test_swipes_and_continuations(self) -> None:
        """Swipes of one message say which of how many; a continuation is a piece of its
        reply, not a reply of its own."""
        tree = [
            node(1, None),
            node(2, 1),
            node(3, 1),
            node(4, 3, "continue"),
            node(5, 4),
            node(6, 1, "aside"),
        ]
        assert reply_words(tree, 2) == "reply 2, swipe 1 of 3"
        assert reply_words(tree, 3) == "reply 2, swipe 2 of 3"
        assert reply_words(tree, 4) == "reply 2, swipe 2 of 3, continued"
        assert reply_words(tree, 5) == "reply 3"

    def test_first_swipes(self) -> None:
        """Two replies to the first message are swipes of reply 1."""
        assert reply_words([node(7, None), node(9, None)], 9) == "reply 1, swipe 2 of 2"


class TestEmbedPage:
    def test_state_only(self, served: Served) -> None:
        """The embed shows the state (characters, bars, wound boxes, conditions, clocks, party)
        and none of the page's header, navigation, timeline, builder links or raw JSON."""
        played(served)
        page = embed(served)
        for shown in (
            'class="card character"',
            'role="meter"',
            'class="boxes"',
            'class="conditions"',
            '<figure class="clock"',
            'class="card party"',
        ):
            assert shown in page.html
        for omitted in (
            'class="site"',
            'class="crumbs"',
            'id="timeline"',
            "node-link",
            "Snapshot JSON",
            "/gmtags/builder",
            "Skip to the content",
        ):
            assert omitted not in page.html
        assert "/gmtags/static/state/embed.css" in page.html
        assert "/gmtags/static/state/embed.js" in page.html

    def test_same_state_as_full_page(self, served: Served) -> None:
        """The embed's state is the full page's state, drawn by the same code."""
        played(served)
        full = served.get("/gmtags/chats/road").text
        state = re.search(r'<div id="state-body">(.*?)<details class="raw">', full)
        assert state is not None
        assert f'<div id="state-body">{state.group(1)}</div>' in embed(served).html

    def test_headings_and_labels(self, served: Served) -> None:
        """One h1 (the chat), a State heading for screen readers, a heading per character."""
        played(served)
        page = embed(served)
        assert re.findall(r"<h1[^>]*>(.*?)</h1>", page.html) == ["road"]
        assert '<h2 id="state-heading" class="visually-hidden">Game state</h2>' in page.html
        assert '<h3 id="character-1">Bram the Quiet</h3>' in page.html
        assert 'role="status" aria-live="polite"' in page.html

    def test_live_note(self, served: Served) -> None:
        """Following the chat, the note says so in words and names the current reply."""
        played(served)
        page = embed(served)
        assert page.text_of("viewing") == "Live · after reply 2"
        assert 'data-mode="live"' in page.html
        assert 'data-version="2|' in page.html

    def test_pinned_to_a_node(self, served: Served) -> None:
        """`&node=<id>` shows the state after that reply, names it, and links back to now."""
        played(served)
        first, second = nodes(served, "road")
        pinned = embed(served, f"&node={first['id']}")
        assert pinned.text_of("viewing") == "Pinned · after reply 1 · Back to now"
        assert "/gmtags/chats/road?embed=1" in pinned.links
        assert 'data-mode="pinned"' in pinned.html
        after_first = served.get(f"/gmtags/api/chats/road/nodes/{first['id']}").json()
        now = served.get("/gmtags/api/chats/road").json()["state"]
        assert after_first["rulesetClocks"] != now["rulesetClocks"]
        for clock in after_first["rulesetClocks"]:
            assert f'data-filled="{clock["filled"]}"' in pinned.html
        assert "(the current one)" in embed(served, f"&node={second['id']}").text_of("viewing")

    def test_pinned_shows_characters_saved_since(self, served: Served) -> None:
        """Pinned to an earlier reply, the embed shows where a turn written there goes on
        from: a character saved on the pages since is in it (SPEC §11, saves stay in play);
        the full page keeps that reply's own state."""
        played(served)
        first, _ = nodes(served, "road")
        saved = httpx.post(
            f"{served.url}/gmtags/api/builder/save",
            json={"chat": "road", "name": "Ilse Vane", "card": {}},
            headers={"Origin": served.url},
            timeout=10,
        )
        assert saved.status_code == 200, saved.text
        assert "Ilse Vane" in embed(served, f"&node={first['id']}").html
        assert "Ilse Vane" in embed(served, "&node=start").html
        full = served.get(f"/gmtags/chats/road?node={first['id']}").text
        assert "Ilse Vane" not in full.split('id="timeline"')[0]

    def test_pinned_to_the_start(self, served: Served) -> None:
        """`&node=start` is the chat's start state, named so."""
        played(served)
        page = embed(served, "&node=start")
        assert page.text_of("viewing").startswith("Pinned · after the chat's start")
        assert "Alarm raised" not in page.html  # the clock the first reply starts

    def test_links_keep_embed(self, served: Served) -> None:
        """Every link in the embed stays in the embed."""
        played(served)
        first = nodes(served, "road")[0]
        for page in (embed(served), embed(served, f"&node={first['id']}")):
            for link in page.links:
                if link.startswith("/gmtags/chats/"):
                    assert "embed=1" in link

    def test_swipe_named(self, served: Served) -> None:
        """A pinned swipe says which swipe of the reply it is."""
        first = served.ask("road", [SYSTEM, user("I push.")])
        served.ask("road", [SYSTEM, user("I push."), gm(first), user("On.")])
        served.ask("road", [SYSTEM, user("I push."), gm(first), user("On.")])
        last = nodes(served, "road")[-1]
        assert "after reply 2, swipe 2 of 2" in embed(served, f"&node={last['id']}").text_of(
            "viewing"
        )

    @pytest.mark.parametrize("chat", ["never-played", "%C3%89lise", "%3Cb%3E"])
    def test_unknown_chat(self, served: Served, chat: str) -> None:
        """A chat with no game yet is one friendly line, not the full 404 page, and the page
        waits for the chat's first reply."""
        response = served.get(f"/gmtags/chats/{chat}?embed=1")
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("text/html")
        assert NO_GAME in response.text
        assert "Not found" not in response.text
        assert 'class="site"' not in response.text
        assert 'data-mode="waiting"' in response.text
        assert "<b>" not in response.text

    def test_unknown_node(self, served: Served) -> None:
        """A reply the chat does not have is a short line with a way back to now."""
        played(served)
        response = served.get("/gmtags/chats/road?embed=1&node=999")
        assert response.status_code == 404
        assert "No reply '999'" in unescape(response.text)
        assert 'href="/gmtags/chats/road?embed=1"' in response.text
        assert 'class="site"' not in response.text

    def test_full_page_unchanged(self, served: Served) -> None:
        """Without embed=1 (or with another value) the page is the full one."""
        played(served)
        for query in ("", "?embed=0"):
            assert 'id="timeline"' in served.get(f"/gmtags/chats/road{query}").text
        assert "Not found" in served.get("/gmtags/chats/nothing").text

    def test_policy_and_framing(self, served: Served) -> None:
        """The embed has the pages' policy: no inline script or style, framed by this server."""
        played(served)
        response = served.get("/gmtags/chats/road?embed=1")
        policy = response.headers["content-security-policy"]
        assert "frame-ancestors 'self'" in policy
        assert "'unsafe-inline'" not in policy
        assert "x-frame-options" not in response.headers
        assert "<style" not in response.text
        assert " style=" not in response.text
        assert re.findall(r"<script[^>]*>", response.text) == [
            '<script src="/gmtags/static/state/follow.js" defer>',
            '<script src="/gmtags/static/state/embed.js" defer>',
        ]
