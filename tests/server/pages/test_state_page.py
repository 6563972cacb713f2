"""gmtags/server/pages/state_html.py and friends: what a person sees on the state page."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

import pytest

from gmtags.demo import demo_file
from gmtags.history.excerpt import excerpt
from gmtags.ruleset.load import load_ruleset
from gmtags.server.app import create_app
from gmtags.server.background import BackgroundServer
from gmtags.server.demo import demo_config
from gmtags.server.demo_upstream import DEMO_REPLIES, ScriptedUpstream
from gmtags.server.pages.state_cards import receipt_card
from gmtags.state.snapshot import Snapshot
from tests.server.pages.test_state_api import SYSTEM, Served, gm, nodes, user
from tests.server.pages.test_state_timeline import visible_text

EVIL = '<img src=x onerror="alert(1)">'


def served_with(
    tmp_path: Path, upstream: ScriptedUpstream, start: Snapshot | None = None
) -> Iterator[Served]:
    with BackgroundServer(upstream.app) as up:
        config = replace(demo_config(f"{up.url}/v1"), db=str(tmp_path / "h.sqlite3"))
        if start is not None:
            config = replace(config, start=start)
        app = create_app(config)
        with BackgroundServer(app) as server:
            yield Served(server.url, app.state.book)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    yield from served_with(tmp_path, ScriptedUpstream())


def played(served: Served) -> list[str]:
    """The demo's first two turns in chat "road"; the replies."""
    first = served.ask("road", [SYSTEM, user("I push.")])
    second = served.ask("road", [SYSTEM, user("I push."), gm(first), user("On.")])
    return [first, second]


class TestChatPage:
    def test_clock_segments(self, served: Served) -> None:
        """Each clock is a circle of `size` segments with `filled` of them shaded."""
        played(served)
        page = served.get("/gmtags/chats/road").text
        state = served.get("/gmtags/api/chats/road").json()["state"]
        for clock in state["rulesetClocks"]:
            name = re.escape(clock["name"])
            figure = re.search(f'<figure class="clock" data-clock="{name}".*?</figure>', page)
            assert figure is not None
            assert figure.group().count('class="segment ') == clock["size"]
            assert figure.group().count('class="segment filled"') == clock["filled"]

    def test_pool_bar_and_wound_boxes(self, served: Served) -> None:
        """The pool shows its value of its max; the wound track a box per level, the mark's
        kind in the first."""
        _, second = played(served)
        page = served.get("/gmtags/chats/road").text
        oil = re.search(r'now="(\d+/\d+)"', second.split('pool="Lamp oil"', 1)[1])
        assert oil is not None
        assert f'<span class="bar-value">{oil.group(1)}</span>' in page
        boxes = re.search(r'<ol class="boxes" aria-label="Harm boxes">(.*?)</ol>', page)
        assert boxes is not None
        assert boxes.group(1).count('<li class="box') == 4
        assert boxes.group(1).count('data-kind="knock"') == 1
        assert 'aria-label="Scuffed: K (knock)"' in boxes.group(1)

    def test_party_sheet(self, served: Served) -> None:
        """The party sheet shows its label, stored fields and pools."""
        played(served)
        page = served.get("/gmtags/chats/road").text
        assert "The Watch" in page and "<dt>Post</dt><dd>The ford tower</dd>" in page
        assert 'data-pool="Supplies"' in page

    def test_timeline_has_the_receipts_as_cards(self, served: Served) -> None:
        """Each reply on the timeline lists its receipts as cards, linked to its state."""
        played(served)
        page = served.get("/gmtags/chats/road").text
        for node in nodes(served, "road"):
            assert f'href="?node={node["id"]}"' in page
            for receipt in node["receipts"]:
                card = receipt_card(receipt)
                assert f'<span class="receipt-asked">{card.asked}</span>' in page

    def test_a_chosen_reply_shows_its_state(self, served: Served) -> None:
        """`?node=` shows the state after that reply, marked as the one shown."""
        played(served)
        one, two = nodes(served, "road")
        page = served.get(f"/gmtags/chats/road?node={one['id']}").text
        assert f'data-node="{one["id"]}" aria-current="true"' in page
        assert f'data-node="{two["id"]}" aria-current="true"' not in page
        assert 'data-clock="Alarm raised" data-size="6" data-filled="0"' in page
        start = served.get("/gmtags/chats/road?node=start").text
        assert 'data-clock="Alarm raised"' not in start
        assert served.get("/gmtags/chats/road?node=999").status_code == 404

    def test_each_reply_is_named_by_its_first_words(self, served: Served) -> None:
        """Each reply the proxy stored reads as "Reply N" and the start of the narration the
        player received, receipts left out; the page never says "node" to the player."""
        replies = played(served)
        page = served.get("/gmtags/chats/road").text
        text = visible_text(page)
        for number, reply in enumerate(replies, start=1):
            words = excerpt(reply)
            assert words and "result=" not in words and words[:30] in reply
            assert f'<q class="reply-words">{words}</q>' in page
            assert re.search(f"Reply {number} (current )?[\\d:]+ UTC {re.escape(words)}", text)
        assert not re.search(r"\bnodes?\b", text, re.IGNORECASE)

    def test_the_current_reply_is_one_link_away(self, served: Served) -> None:
        """Above the state and the timeline, a link goes to the current reply's entry (the C
        key's target); the showing line links the reply shown, with its words."""
        replies = played(served)
        one, two = nodes(served, "road")
        page = served.get(f"/gmtags/chats/road?node={one['id']}").text
        jump = re.search(r'<p id="jump" class="jump"><a class="jump-link" href="#([^"]+)"', page)
        assert jump is not None and jump.group(1) == f"reply-{two['id']}"
        assert f'id="reply-{two["id"]}" data-node="{two["id"]}"' in page
        assert "Current reply: Reply 2" in visible_text(page)
        assert page.index('id="jump"') < page.index('id="state"')
        viewing = re.search(r'<p id="viewing"[^>]*>(.*?)</p>', page)
        assert viewing is not None
        assert f'<a class="to-reply" href="#reply-{one["id"]}">Reply 1</a>' in viewing.group(1)
        assert excerpt(replies[0]) in viewing.group(1)
        start = served.get("/gmtags/chats/road?node=start").text
        assert 'href="#reply-start">the chat&#x27;s start</a>' in start

    def test_the_page_links_its_json(self, served: Served) -> None:
        """Like datasette, the page names its JSON twins."""
        played(served)
        page = served.get("/gmtags/chats/road").text
        assert 'href="/gmtags/api/chats/road"' in page
        assert 'data-api="/gmtags/api/chats/road"' in page
        chat, snapshot = re.findall(r'<p class="json">.*?</p>', page)[0].split('href="')[1:3]
        for link in (chat, snapshot):  # each answers (the events stream is tested apart)
            assert served.get(link.split('"')[0]).status_code == 200

    def test_the_snapshot_link_names_the_state_shown(self, served: Served) -> None:
        """ "this snapshot" is the chat's JSON for the state now, the node's for a reply."""
        played(served)
        one, _ = nodes(served, "road")
        now = served.get("/gmtags/chats/road").text
        assert '<a href="/gmtags/api/chats/road">this snapshot</a>' in now
        chosen = served.get(f"/gmtags/chats/road?node={one['id']}").text
        snapshot = f"/gmtags/api/chats/road/nodes/{one['id']}"
        assert f'<a href="{snapshot}">this snapshot</a>' in chosen


class TestEscaping:
    def test_model_text_never_becomes_markup(self, tmp_path: Path) -> None:
        """A clock, a character and a chat named with markup show as text."""
        evil_reply = f'{EVIL} A sign. [clock: name="{EVIL}" size="4"]\n'
        upstream = ScriptedUpstream(replies=(evil_reply, *DEMO_REPLIES))
        start = Snapshot.model_validate({"gameCharacterCards": {EVIL: {}}})
        for served in served_with(tmp_path, upstream, start):
            served.ask("<b>x</b>", [SYSTEM, user("I look.")])
            chat = served.get("/gmtags/api/chats").json()[0]["chat"]
            assert chat == "<b>x</b>"
            page = served.get(f"/gmtags/chats/{quote(chat, safe='')}").text
            index = served.get("/gmtags/").text
            assert "<img" not in page and "<b>x</b>" not in page and "<b>x</b>" not in index
            assert "&lt;img src=x" in page and "&lt;b&gt;x&lt;/b&gt;" in index
            words = re.search(r'<q class="reply-words">([^<]*)</q>', page)  # the reply's own
            assert words is not None and words.group(1).startswith("&lt;img src=x")


class TestBuilderLinks:
    def test_a_ruleset_with_a_builder_links_it(self, tmp_path: Path) -> None:
        """The chat page links the builder page for its chat when the ruleset has a builder."""
        text = demo_file("builder-ruleset.json").read_text(encoding="utf-8")
        ruleset = load_ruleset(json.loads(text))
        with BackgroundServer(ScriptedUpstream().app) as up:
            config = replace(demo_config(f"{up.url}/v1", ruleset), db=str(tmp_path / "h.db"))
            app = create_app(config)
            with BackgroundServer(app) as server:
                served = Served(server.url, app.state.book)
                served.ask("road", [SYSTEM, user("I look.")])
                page = served.get("/gmtags/chats/road").text
        assert 'href="/gmtags/builder?chat=road"' in page

    def test_a_ruleset_without_one_does_not(self, served: Served) -> None:
        """The demo's own ruleset has no builder: no link to a page that would be a 404."""
        served.ask("road", [SYSTEM, user("I look.")])
        assert "/gmtags/builder" not in served.get("/gmtags/chats/road").text
