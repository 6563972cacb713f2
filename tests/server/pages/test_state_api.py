"""gmtags/server/pages/state.py: the chat JSON endpoints of SPEC §11 and the events stream."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from gmtags.server.app import create_app
from gmtags.server.background import BackgroundServer
from gmtags.server.chats import ChatBook
from gmtags.server.demo import demo_config
from gmtags.server.demo_upstream import MODEL, ScriptedUpstream
from gmtags.server.pages import state
from tests.server.conftest import read_events

SYSTEM = {"role": "system", "content": "GM"}
TIMEOUT = 10.0


@dataclass
class Served:
    """A proxy with the scripted upstream, and its chat book (to see its subscribers)."""

    url: str
    book: ChatBook

    def ask(self, chat: str, messages: list[dict[str, str]]) -> str:
        """Post one chat completion in `chat`; the reply's content."""
        response = httpx.post(
            f"{self.url}/v1/chat/completions",
            json={"model": MODEL, "messages": messages},
            headers={"X-Gmtags-Chat": chat, "Authorization": "Bearer sk-test"},
            timeout=TIMEOUT,
        )
        assert response.status_code == 200
        content: str = response.json()["choices"][0]["message"]["content"]
        return content

    def get(self, path: str) -> httpx.Response:
        return httpx.get(f"{self.url}{path}", timeout=TIMEOUT)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """The demo proxy (history in a file) in front of the scripted upstream."""
    with BackgroundServer(ScriptedUpstream().app) as upstream:
        config = replace(demo_config(f"{upstream.url}/v1"), db=str(tmp_path / "h.sqlite3"))
        app = create_app(config)
        with BackgroundServer(app) as server:
            yield Served(server.url, app.state.book)


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def gm(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


def nodes(served: Served, chat: str) -> list[dict[str, Any]]:
    response = served.get(f"/gmtags/api/chats/{chat}")
    assert response.status_code == 200
    found: list[dict[str, Any]] = response.json()["nodes"]
    return found


def receipt_now(receipt: str) -> str:
    """The `now=` a receipt's engine wrote."""
    return receipt.split(' now="', 1)[1].split('"', 1)[0]


class TestChatList:
    def test_lists_each_chat_with_its_replies_and_update(self, served: Served) -> None:
        """`/gmtags/api/chats` gives every chat, its reply count and its last change in UTC."""
        before = datetime.now(UTC)
        first = served.ask("road", [SYSTEM, user("I push.")])
        served.ask("road", [SYSTEM, user("I push."), gm(first), user("On.")])
        served.ask("ford", [SYSTEM, user("I wade.")])
        chats = served.get("/gmtags/api/chats").json()
        assert {chat["chat"]: chat["replies"] for chat in chats} == {"road": 2, "ford": 1}
        assert chats[0]["chat"] == "ford"  # the newest first
        for chat in chats:
            updated = datetime.fromisoformat(chat["updated"].replace("Z", "+00:00"))
            assert before.replace(microsecond=0) <= updated <= datetime.now(UTC)

    def test_a_continuation_is_not_another_reply(self, served: Served) -> None:
        """A continuation is part of the reply it continues: the count stays."""
        first = served.ask("road", [SYSTEM, user("I push.")])
        served.ask("road", [SYSTEM, user("I push."), gm(first)])
        (chat,) = served.get("/gmtags/api/chats").json()
        assert chat["replies"] == 1
        assert [node["kind"] for node in nodes(served, "road")] == ["reply", "continuation"]

    def test_the_index_page_links_each_chat(self, served: Served) -> None:
        """`/gmtags/` is an HTML page with a link to each chat's page."""
        served.ask("road", [SYSTEM, user("I push.")])
        page = served.get("/gmtags/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert 'href="/gmtags/chats/road"' in page.text


class TestChat:
    def test_state_is_the_current_snapshot(self, served: Served) -> None:
        """The chat's `state` is the snapshot `GET /gmtags/chats/{chat}/state` answers."""
        served.ask("road", [SYSTEM, user("I push.")])
        body = served.get("/gmtags/api/chats/road").json()
        assert body["state"] == served.get("/gmtags/chats/road/state").json()
        assert set(body) == {"state", "nodes"}

    def test_node_shape(self, served: Served) -> None:
        """Each node has exactly the keys of SPEC §11, its receipts from the reply."""
        reply = served.ask("road", [SYSTEM, user("I push.")])
        (node,) = nodes(served, "road")
        assert set(node) == {"id", "parent", "kind", "receipts", "created", "current"}
        assert node["parent"] is None and node["kind"] == "reply" and node["current"] is True
        assert node["receipts"] and all(receipt in reply for receipt in node["receipts"])
        datetime.fromisoformat(node["created"].replace("Z", "+00:00"))

    def test_swipe_and_continuation(self, served: Served) -> None:
        """A swipe is a sibling reply and becomes current; a continuation hangs under its
        reply and does not."""
        turn = [SYSTEM, user("I push.")]
        first = served.ask("road", turn)
        second = served.ask("road", [*turn, gm(first), user("On.")])
        swipe = served.ask("road", [*turn, gm(first), user("On.")])
        served.ask("road", [*turn, gm(first), user("On."), gm(swipe)])
        one, two, three, four = nodes(served, "road")
        assert (two["parent"], three["parent"]) == (one["id"], one["id"])
        assert [n["kind"] for n in (one, two, three)] == ["reply"] * 3
        assert four["kind"] == "continuation" and four["parent"] == three["id"]
        assert [n["current"] for n in (one, two, three, four)] == [False, False, True, False]
        assert second == swipe  # the same text again: told apart by place, not content

    def test_unknown_chat_is_404(self, served: Served) -> None:
        """An unknown chat is an OpenAI-style 404, as JSON and as a page."""
        response = served.get("/gmtags/api/chats/nobody")
        assert response.status_code == 404 and "error" in response.json()
        assert served.get("/gmtags/chats/nobody").status_code == 404


class TestNode:
    def test_snapshot_after_each_swipe(self, served: Served) -> None:
        """`nodes/{id}` is the snapshot after that node: two sibling replies, two states."""
        turn = [SYSTEM, user("I push.")]
        first = served.ask("road", turn)
        served.ask("road", [*turn, gm(first), user("On.")])
        served.ask("road", [*turn, gm(first), user("On."), user("And on.")])
        one, spent, washed = nodes(served, "road")
        assert spent["parent"] == washed["parent"] == one["id"]
        after_spent = served.get(f"/gmtags/api/chats/road/nodes/{spent['id']}").json()
        after_washed = served.get(f"/gmtags/api/chats/road/nodes/{washed['id']}").json()
        oil = next(r for r in spent["receipts"] if 'pool="Lamp oil"' in r)
        assert f"{after_spent['rulesetLive']['bram the quiet']['pools']['oil']}/4" == (
            receipt_now(oil)
        )
        road = next(r for r in washed["receipts"] if 'name="Road washed out"' in r)
        clock = next(c for c in after_washed["rulesetClocks"] if c["name"] == "Road washed out")
        assert f"{clock['filled']}/{clock['size']}" == receipt_now(road)
        assert after_washed == served.get("/gmtags/api/chats/road").json()["state"]

    @pytest.mark.parametrize("ident", ["999", "abc", "-1", "1" * 40, "１", "١", "¹", "²"])
    def test_unknown_node_is_404(self, served: Served, ident: str) -> None:
        """A node the chat does not have is a 404 error object; an id is ASCII digits only (node 1
        exists, and full-width, Arabic-Indic or superscript digits do not name it)."""
        served.ask("road", [SYSTEM, user("I push.")])
        response = served.get(f"/gmtags/api/chats/road/nodes/{ident}")
        assert response.status_code == 404 and "error" in response.json()

    def test_node_of_another_chat_is_404(self, served: Served) -> None:
        """A node is found only in its own chat."""
        served.ask("road", [SYSTEM, user("I push.")])
        served.ask("ford", [SYSTEM, user("I wade.")])
        (node,) = nodes(served, "road")
        assert served.get(f"/gmtags/api/chats/ford/nodes/{node['id']}").status_code == 404
        assert served.get(f"/gmtags/api/chats/nobody/nodes/{node['id']}").status_code == 404


class TestEvents:
    def test_a_new_reply_is_an_event(self, served: Served) -> None:
        """A reply finished while the stream is open arrives as a `node` event."""
        reply = served.ask("road", [SYSTEM, user("I push.")])
        (first,) = nodes(served, "road")
        turn = [SYSTEM, user("I push."), gm(reply), user("On.")]
        events = read_events(served.url, "road", lambda: served.ask("road", turn), 1)
        (kind, data), new = events[0], nodes(served, "road")[-1]
        assert kind == "node"
        assert data == {
            "chat": "road",
            "node": new["id"],
            "parent": first["id"],
            "kind": "reply",
            "current": new["id"],
        }
        assert new["id"] != first["id"]

    def test_moving_back_is_a_current_event(self, served: Served) -> None:
        """A request anchored on an older reply moves current there first (a `current`
        event), then its reply arrives."""
        turn = [SYSTEM, user("I push.")]
        first = served.ask("road", turn)
        second = served.ask("road", [*turn, gm(first), user("On.")])
        served.ask("road", [*turn, gm(first), user("On."), gm(second), user("Again.")])
        one, two, _ = nodes(served, "road")
        events = read_events(
            served.url, "road", lambda: served.ask("road", [*turn, gm(first), user("Back.")]), 2
        )
        assert [kind for kind, _ in events] == ["current", "node"]
        assert events[0][1]["current"] == one["id"]
        assert events[1][1]["parent"] == one["id"]
        assert two["id"] not in (events[1][1]["node"], events[1][1]["current"])

    def test_a_save_is_a_changed_event(self, served: Served) -> None:
        """`events.changed(chat)` (what the builder page calls after a save) is an event."""
        served.ask("road", [SYSTEM, user("I push.")])
        events = read_events(served.url, "road", lambda: served.book.events.changed("road"), 1)
        assert events == [("changed", {"chat": "road"})]

    def test_events_of_an_unknown_chat_are_404(self, served: Served) -> None:
        """No stream opens for a chat the proxy does not know."""
        response = served.get("/gmtags/api/chats/nobody/events")
        assert response.status_code == 404 and "error" in response.json()

    def test_a_stream_ends_by_itself(self, served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
        """A stream lasts `STREAM_SECONDS` (the browser connects again), so a server shutting
        down never waits long for it; its subscription goes with it."""
        monkeypatch.setattr(state, "STREAM_SECONDS", 0.5)
        monkeypatch.setattr(state, "KEEPALIVE", 0.2)
        served.ask("road", [SYSTEM, user("I push.")])
        started = time.monotonic()
        with httpx.stream("GET", f"{served.url}/gmtags/api/chats/road/events") as stream:
            text = "".join(stream.iter_text())
        assert time.monotonic() - started < 5
        assert text.startswith("retry: ") and ": keep-alive" in text
        assert served.book.events.subscribers("road") == 0

    def test_a_client_going_away_unsubscribes(self, served: Served) -> None:
        """Closing the stream ends it on the server: the chat has no subscriber left."""
        served.ask("road", [SYSTEM, user("I push.")])
        with httpx.stream("GET", f"{served.url}/gmtags/api/chats/road/events") as stream:
            lines = stream.iter_lines()  # kept: a dropped iterator closes the connection
            next(lines)
            assert served.book.events.subscribers("road") == 1
        deadline = time.monotonic() + 5
        while served.book.events.subscribers("road") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert served.book.events.subscribers("road") == 0


class TestStatic:
    @pytest.mark.parametrize("name", ["base.css", "state/state.css", "state/state.js"])
    def test_static_files_are_served(self, served: Served, name: str) -> None:
        """The wheel's static files are served under `/gmtags/static/`."""
        response = served.get(f"/gmtags/static/{name}")
        assert response.status_code == 200 and response.text
        assert (state.STATIC_DIR / name).read_text(encoding="utf-8") == response.text
