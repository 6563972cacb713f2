"""A chat's replies as a timeline, in HTML (SPEC §11, the state page's right column).

The nodes of a chat form a tree (`gmtags.history.store`): several replies under
one parent are swipes of one message and are listed together as siblings, an
abandoned one with the replies that followed it; a continuation is joined to
the reply it continues (a piece of the same message, still chosen on its own,
since the state after it is its own). The list is flat, with levels of
indentation, so a long chat with many swipes renders without recursion or
deep nesting. Each reply is named as the player knows it: "Reply 3" (", swipe
2 of 3" among swipes) and its first words (`gmtags.history.excerpt`), never by
its node id, which only data attributes and `id="reply-<id>"` anchors carry.
Each lists its receipts as cards (`state_cards`); each links to `?node=<id>`,
the state after it, so the timeline works without JavaScript and the page's
script only intercepts it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import quote

from gmtags.history.excerpt import excerpt
from gmtags.history.store import Node
from gmtags.server.pages.state_cards import receipt_card
from gmtags.server.pages.state_sheet import esc

START = "start"
"""The `?node=` value that shows the chat's start state."""


def anchor(ident: int | None) -> str:
    """The id of a reply's entry (None: the chat's start), which links jump to."""
    return f"reply-{START if ident is None else ident}"


def first_words(node: Node) -> str:
    """A reply's first words: as stored, or (a node stored before excerpts were) read from
    the text that identifies a reply without receipts; "" when neither has any."""
    return node.excerpt or excerpt(node.fingerprint.text)


def iso_time(created: float | None) -> str | None:
    """`created` (seconds since the epoch) as ISO-8601 UTC text, to the millisecond."""
    if created is None:
        return None
    moment = datetime.fromtimestamp(created, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class _Item:
    """One reply as the timeline shows it: its node, its continuation pieces, what follows."""

    node: Node
    pieces: list[Node] = field(default_factory=list)
    after: list[Node] = field(default_factory=list)


class Timeline:
    """The reply tree of one chat, with the chat's current node and the node being shown."""

    def __init__(self, nodes: Sequence[Node], current: int | None, shown: int | None) -> None:
        self.nodes = {node.id: node for node in nodes}
        self.children: dict[int | None, list[Node]] = {}
        for node in sorted(nodes, key=lambda n: n.id):
            parent = node.parent if node.parent in self.nodes else None
            self.children.setdefault(parent, []).append(node)
        self.current = current
        self.shown = shown
        self.titles: dict[int, str] = {}
        """Each node's title as `html` shows it ("Reply 2, swipe 1 of 2")."""

    def name(self, ident: int | None) -> tuple[str, str]:
        """What the player calls node `ident` (None: the start) once `html` has run: its title
        and its first words."""
        if ident is None or ident not in self.nodes:
            return "the chat's start", ""
        return self.titles.get(ident, "a reply"), first_words(self.nodes[ident])

    def _item(self, node: Node) -> _Item:
        """A reply with its continuations gathered (a continuation's continuation too)."""
        item = _Item(node)
        waiting = [node]
        while waiting:
            piece = waiting.pop(0)
            for child in self.children.get(piece.id, []):
                if child.kind == "continue":
                    item.pieces.append(child)
                    waiting.append(child)
                else:
                    item.after.append(child)
        item.after.sort(key=lambda n: n.id)
        return item

    def _replies(self, nodes: Sequence[Node]) -> list[Node]:
        """The replies among children of one node (a continuation of nothing counts as one)."""
        return [n for n in nodes if n.kind != "continue" or n.parent not in self.nodes]

    def _path(self, ident: int | None) -> set[int]:
        """`ident` and every node above it."""
        path: set[int] = set()
        while ident is not None and ident in self.nodes and ident not in path:
            path.add(ident)
            ident = self.nodes[ident].parent
        return path

    def html(self) -> str:
        """The timeline: the chat's start, then every reply in order, swipes as siblings.

        One flat list, built without recursion however long or branched the chat is: each
        entry has a level (its indentation). At a message with several swipes the swipes are
        listed one level in, each abandoned one with the replies that followed it a level
        further in; the chat goes on at the same level after the swipe it follows (the one on
        the way to the current node, else to the one shown, else the newest).
        """
        start = (
            f'<li class="node start level-0{" current" if self.current is None else ""}"'
            f' id="{anchor(None)}">'
            + self._link(
                START,
                "Start",
                "the state the chat began with",
                self.shown is None,
                self.current is None,
            )
            + "</li>"
        )
        followed = self._path(self.current) or self._path(self.shown)
        rows: list[str] = [start]
        tasks: list[_Run | str] = [(self._replies(self.children.get(None, [])), 1, 0, "")]
        while tasks:
            task = tasks.pop()
            if isinstance(task, str):
                rows.append(task)
                continue
            siblings, depth, level, after = task
            while len(siblings) == 1:
                item = self._item(siblings[0])
                rows.append(self._reply(item, depth, None, level, after))
                siblings, depth, after = self._replies(item.after), depth + 1, ""
            if not siblings:
                continue
            count = len(siblings)
            on = next((n for n in siblings if n.id in followed), siblings[-1])
            later: list[_Run | str] = []
            head = f"Reply {depth}: {count} swipes" + (f" ({after})" if after else "")
            later.append(f'<li class="swipes-head level-{_indent(level)}">{esc(head)}</li>')
            for number, node in enumerate(siblings, start=1):
                item = self._item(node)
                later.append(self._reply(item, depth, (number, count), level + 1))
                if node is not on:
                    later.append((self._replies(item.after), depth + 1, level + 2, ""))
            after_on = self._replies(self._item(on).after)
            if after_on:
                number = siblings.index(on) + 1
                later.append((after_on, depth + 1, level, f"after swipe {number} of reply {depth}"))
            tasks.extend(reversed(later))
        return f'<ol class="tree" aria-label="Replies, oldest first">{"".join(rows)}</ol>'

    def _reply(
        self, item: _Item, depth: int, swipe: tuple[int, int] | None, level: int, after: str = ""
    ) -> str:
        node = item.node
        title = f"Reply {depth}" + (f", swipe {swipe[0]} of {swipe[1]}" if swipe else "")
        self.titles[node.id] = title
        when = iso_time(node.created)
        classes = ["node", f"level-{_indent(level)}"]
        if self._current_in(item):
            classes.append("current")
        for piece in item.pieces:
            self.titles[piece.id] = f"{title}, continued"
        pieces = "".join(
            f'<div class="piece" id="{anchor(p.id)}">'
            + self._link(
                str(p.id),
                "Continued",
                "",
                self.shown == p.id,
                self.current == p.id,
                iso_time(p.created),
                first_words(p),
            )
            + _cards(p)
            + "</div>"
            for p in item.pieces
        )
        return (
            f'<li class="{" ".join(classes)}" id="{anchor(node.id)}" data-node="{node.id}">'
            + self._link(
                str(node.id),
                title,
                after,
                self.shown == node.id,
                self.current == node.id,
                when,
                first_words(node),
            )
            + _cards(node)
            + pieces
            + "</li>"
        )

    def _current_in(self, item: _Item) -> bool:
        return self.current in {item.node.id, *(p.id for p in item.pieces)}

    def _link(
        self,
        ident: str,
        title: str,
        note: str,
        shown: bool,
        current: bool,
        when: str | None = None,
        words: str = "",
    ) -> str:
        attrs = ' aria-current="true"' if shown else ""
        badge = '<span class="badge">current</span>' if current else ""
        time = f'<time datetime="{esc(when)}">{esc(when[11:19])} UTC</time>' if when else ""
        small = f'<span class="node-note">{esc(note)}</span>' if note else ""
        said = f'<q class="reply-words">{esc(words)}</q>' if words else ""
        return (
            f'<a class="node-link" href="?node={quote(ident)}" data-node="{esc(ident)}"{attrs}>'
            f'<span class="node-title">{esc(title)}</span>{badge}{small}{time}{said}</a>'
        )


_Run = tuple[list[Node], int, int, str]
"""Replies still to list: the siblings of one message, its number, the level, and which swipe
of the message before they follow (when that had several)."""

MAX_INDENT = 6
"""The deepest indentation drawn: a branch of a branch of … further in reads no better."""


def _indent(level: int) -> int:
    return min(level, MAX_INDENT)


def _cards(node: Node) -> str:
    """A node's receipts as cards (a reply with no tags says so)."""
    receipts = node.receipts
    if not receipts:
        return '<p class="none">No tags in this reply.</p>'
    cards = []
    for text in receipts:
        card = receipt_card(text)
        refused = " refused" if card.refused else ""
        subject = (
            f'<span class="receipt-subject">{esc(card.subject)}</span>' if card.subject else ""
        )
        cards.append(
            f'<li class="receipt{refused}" data-tag="{esc(card.tag)}">'
            f'<span class="receipt-tag">{esc(card.tag.replace("_", " "))}</span>{subject}'
            f'<span class="receipt-asked">{esc(card.asked)}</span>'
            f'<strong class="receipt-outcome">{esc(card.outcome)}</strong></li>'
        )
    raw = "\n".join(esc(text) for text in receipts)
    return (
        f'<ul class="receipts">{"".join(cards)}</ul>'
        f'<details class="raw"><summary>Receipts as saved</summary><pre>{raw}</pre></details>'
    )
