"""gmtags/server/pages/state_timeline.py: the reply tree as a person reads it."""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser

from gmtags.history.fingerprint import Fingerprint
from gmtags.history.store import Node, NodeKind
from gmtags.server.pages.state_timeline import Timeline, iso_time


def node(ident: int, parent: int | None, kind: NodeKind = "turn", *receipts: str) -> Node:
    return Node(ident, "c", parent, kind, 1, "b", "a", Fingerprint(receipts, ""), 1.0e9 + ident)


def said(ident: int, parent: int | None, words: str, kind: NodeKind = "turn") -> Node:
    """A node stored with its first words."""
    return replace(node(ident, parent, kind), excerpt=words)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def visible_text(html: str) -> str:
    """What a person reads of `html`: its text, tags and attributes left out."""
    reader = _Text()
    reader.feed(html)
    return " ".join(" ".join(reader.parts).split())


def entries(html: str) -> list[tuple[str, str]]:
    """Each timeline entry's class and the node it is (the swipe heads have none)."""
    return re.findall(r'<li class="([^"]*)" id="reply-\w+"(?: data-node="(\d+)")?', html)


class TestTimeline:
    def test_swipes_are_siblings_and_the_chat_goes_on_after_the_current(self) -> None:
        """Two replies to one message are swipes 1 and 2 one level in; the chat goes on at
        the first level after the swipe it follows."""
        html = Timeline([node(1, None), node(2, 1), node(3, 1), node(4, 3)], 4, 4).html()
        assert "Reply 2: 2 swipes" in html
        assert "Reply 2, swipe 1 of 2" in html and "Reply 2, swipe 2 of 2" in html
        assert [n for _, n in entries(html) if n] == ["1", "2", "3", "4"]
        levels = {n: c.split()[1] for c, n in entries(html) if n}
        assert levels == {"1": "level-0", "2": "level-1", "3": "level-1", "4": "level-0"}

    def test_an_abandoned_swipe_keeps_its_replies_further_in(self) -> None:
        """Replies after a swipe the chat left are listed under it, a level further in."""
        html = Timeline([node(1, None), node(2, None), node(3, 1), node(4, 2)], 4, 4).html()
        levels = {n: c.split()[1] for c, n in entries(html) if n}
        assert levels == {"1": "level-1", "3": "level-2", "2": "level-1", "4": "level-0"}
        assert [n for _, n in entries(html) if n] == ["1", "3", "2", "4"]

    def test_a_continuation_is_joined_to_its_reply(self) -> None:
        """A continuation is a piece of its reply's entry, not an entry of its own, and the
        reply after it follows as the next message."""
        html = Timeline([node(1, None), node(2, 1, "continue"), node(3, 2)], 3, 2).html()
        assert [n for _, n in entries(html) if n] == ["1", "3"]
        piece = re.search(
            r'<div class="piece" id="reply-2"><a class="node-link" href="\?node=2"[^>]*>', html
        )
        assert piece is not None and 'aria-current="true"' in piece.group()
        assert "Reply 2" in html and "swipe" not in html

    def test_the_current_and_the_shown_node_are_marked(self) -> None:
        """The chat's current node carries the badge; the one shown is aria-current."""
        html = Timeline([node(1, None), node(2, 1)], 1, 2).html()
        current = re.search(r'href="\?node=1"[^>]*>.*?</a>', html)
        shown = re.search(r'href="\?node=2"[^>]*>', html)
        assert current is not None and '<span class="badge">current</span>' in current.group()
        assert shown is not None and 'aria-current="true"' in shown.group()

    def test_a_long_branched_chat_renders_without_recursion(self) -> None:
        """Thousands of messages, each swiped and each swipe gone on from, render flat."""
        nodes, parent = [], None
        for message in range(3000):
            first, second = 2 * message + 1, 2 * message + 2
            nodes += [node(first, parent), node(second, parent)]
            parent = first if message % 2 else second
        html = Timeline(nodes, parent, None).html()
        assert len([n for _, n in entries(html) if n]) == len(nodes)
        assert html.count("<ol") == 1
        assert max(int(c.split("level-")[1].split()[0]) for c, _ in entries(html)) <= 6

    def test_a_reply_is_named_by_its_first_words_never_its_node(self) -> None:
        """Each reply reads as its ordinal and the start of its narration; its node id is in
        its data attributes and anchor only, never in what the player reads."""
        nodes = [
            said(11, None, "The lantern gutters as Bram sets his shoulder to the gate."),
            said(12, 11, "Bram tops up the lamp before the wind can take it."),
            said(13, 11, "Rain hammers the road."),
            said(14, 13, "The latch gives.", "continue"),
        ]
        html = Timeline(nodes, 14, 14).html()
        text = visible_text(html)
        assert re.search(r"Reply 1 [\d:]+ UTC The lantern gutters as Bram sets his", text)
        assert "Reply 2, swipe 1 of 2" in text and "Bram tops up the lamp" in text
        assert "Continued" in text and "The latch gives." in text
        assert not re.search(r"\bnode\b", text, re.IGNORECASE)
        assert not any(str(n.id) in text for n in nodes)
        assert 'id="reply-12" data-node="12"' in html and 'id="reply-14"' in html
        assert '<q class="reply-words">Rain hammers the road.</q>' in html

    def test_names_for_the_showing_line(self) -> None:
        """`name` gives the title and words the timeline shows, a continuation as its reply's."""
        nodes = [said(1, None, "Dusk."), said(2, None, "Dawn."), said(3, 2, "On.", "continue")]
        tree = Timeline(nodes, 3, 1)
        tree.html()
        assert tree.name(1) == ("Reply 1, swipe 1 of 2", "Dusk.")
        assert tree.name(3) == ("Reply 1, swipe 2 of 2, continued", "On.")
        assert tree.name(None) == ("the chat's start", "")

    def test_an_older_node_is_named_by_its_text_or_its_ordinal(self) -> None:
        """A node stored before excerpts: a reply without receipts by its fingerprint's text
        (shortened), one with receipts by its ordinal alone."""
        long = "The road floods " + "and floods " * 20
        plain = Node(1, "c", None, "turn", 1, "b", "a", Fingerprint((), long), 1.0e9)
        tagged = node(2, 1, "turn", '[clock: name="A" tick="1" result="ok" now="1/4"]')
        html = Timeline([plain, tagged], 2, 2).html()
        words = re.findall(r'<q class="reply-words">([^<]*)</q>', html)
        assert len(words) == 1 and words[0].startswith("The road floods and")
        assert words[0].endswith("…") and len(words[0]) <= 90

    def test_first_words_are_escaped(self) -> None:
        """Words a model wrote never become markup."""
        html = Timeline([said(1, None, '<img src=x onerror="alert(1)">')], 1, 1).html()
        assert "<img" not in html and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html

    def test_times_are_utc_iso_text(self) -> None:
        """`created` reads as ISO-8601 UTC to the millisecond; none stays none."""
        assert iso_time(0.5) == "1970-01-01T00:00:00.500Z"
        assert iso_time(None) is None
