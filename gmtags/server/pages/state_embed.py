"""The compact state of one chat, for a frame beside the chat (`/gmtags/chats/{chat}?embed=1`).

SPEC §13: the SillyTavern extension's Game panel shows the open chat's
characters (sheets, pools and tracks as bars, wound boxes, conditions), clocks
and party sheet, compact enough for a 390 px wide screen, updated within 2 s
after every reply, and the state of the message the player is looking at. This
is that panel as a page: the state as the full page draws it (`state_sheet`),
with no site header, navigation, timeline or snapshot JSON, in a smaller type
(`state/embed.css`). `&node=<id>` shows the state after that reply, saying which
one in the player's words ("after reply 3, swipe 2 of 2") with a link back to
now; without it the page follows the chat (`state/embed.js`). Every link in it
keeps `embed=1`. A chat with no game yet is a short line, not the full 404 page,
and the page loads itself once the chat's first reply is made.
"""

from __future__ import annotations

from collections.abc import Sequence

from gmtags.history.store import Node
from gmtags.ruleset.model import Ruleset
from gmtags.server.pages.state_html import STATIC, chat_path
from gmtags.server.pages.state_sheet import esc, state_html
from gmtags.state.snapshot import Snapshot

EMBED = "embed=1"
"""The query that asks for the compact page (links inside it keep it)."""


def embed_url(chat_id: str) -> str:
    """The compact page of `chat_id`, following the chat (its "now")."""
    return f"/gmtags/chats/{chat_path(chat_id)}?{EMBED}"


def reply_words(nodes: Sequence[Node], ident: int | None) -> str:
    """Which reply `ident` is, as the player counts them and the timeline titles them: "reply
    3", with ", swipe 2 of 3" when its message has several and ", continued" for a
    continuation (None: "the chat's start"). The count follows the reply tree, not ids."""
    by_id = {node.id: node for node in nodes}
    if ident is None or ident not in by_id:
        return "the chat's start"
    head, continued = _reply_of(by_id, by_id[ident])
    depth = 0
    walk: Node | None = head
    while walk is not None and depth <= len(by_id):
        depth += 1
        walk = _owner(by_id, walk)
    siblings = _swipes(by_id, head)
    words = f"reply {depth}"
    if len(siblings) > 1:
        words += f", swipe {siblings.index(head.id) + 1} of {len(siblings)}"
    return words + (", continued" if continued else "")


def _reply_of(by_id: dict[int, Node], node: Node) -> tuple[Node, bool]:
    """The reply a continuation is a piece of (a node that is a reply: itself), and whether
    `node` was a continuation."""
    head, seen = node, {node.id}
    while head.kind == "continue" and head.parent in by_id and head.parent not in seen:
        head = by_id[head.parent]
        seen.add(head.id)
    return head, head is not node


def _owner(by_id: dict[int, Node], reply: Node) -> Node | None:
    """The reply `reply` follows (None: it is a first reply)."""
    if reply.parent is None or reply.parent not in by_id:
        return None
    return _reply_of(by_id, by_id[reply.parent])[0]


def _swipes(by_id: dict[int, Node], reply: Node) -> list[int]:
    """The ids of the replies to the same message as `reply` (its swipes), oldest first."""

    def owner_id(node: Node) -> int | None:
        owner = _owner(by_id, node)
        return None if owner is None else owner.id

    mine = owner_id(reply)
    return sorted(
        node.id
        for node in by_id.values()
        if (node.kind != "continue" or node.parent not in by_id) and owner_id(node) == mine
    )


def _document(title: str, body: str, data: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{esc(title)}</title><link rel="icon" href="data:,">'
        f'<link rel="stylesheet" href="{STATIC}/base.css">'
        f'<link rel="stylesheet" href="{STATIC}/state/state.css">'
        f'<link rel="stylesheet" href="{STATIC}/state/embed.css">'
        f'<script src="{STATIC}/state/follow.js" defer></script>'
        f'<script src="{STATIC}/state/embed.js" defer></script></head>'
        f'<body class="embed"{data}><main id="main" class="embed-main">{body}</main></body></html>'
    )


def _data(chat_id: str, mode: str, version: str = "") -> str:
    api = f"/gmtags/api/chats/{chat_path(chat_id)}"
    return f' data-api="{esc(api)}" data-mode="{mode}" data-version="{esc(version)}"'


def version(nodes: Sequence[Node], current: int | None) -> str:
    """The replies and the current one, as `embed.js` reads them from the chat's JSON (so a
    reply made between this page and its first reading is not missed)."""
    return f"{len(nodes)}|{'start' if current is None else current}"


def embed_page(
    ruleset: Ruleset,
    chat_id: str,
    snapshot: Snapshot,
    nodes: Sequence[Node],
    current: int | None,
    shown: int | None,
    pinned: bool,
) -> str:
    """The compact state after `shown` (None: the start); `pinned` when `&node=` chose it,
    else the page follows the chat's current reply."""
    now = reply_words(nodes, current)
    if not pinned:
        viewing = f'<span class="mode live">Live</span> · after {esc(now)}'
    else:
        which = reply_words(nodes, shown)
        also = " (the current one)" if shown == current else ""
        viewing = (
            f'<span class="mode pinned">Pinned</span> · after {esc(which)}{also} · '
            f'<a href="{embed_url(chat_id)}">Back to now</a>'
        )
    body = (
        f'<h1 class="embed-title">{esc(chat_id)}</h1>'
        f'<p id="viewing" class="viewing">{viewing}</p>'
        '<p id="live" class="live-status" role="status" aria-live="polite"></p>'
        '<section id="state" class="state" aria-labelledby="state-heading">'
        '<h2 id="state-heading" class="visually-hidden">Game state</h2>'
        f'<div id="state-body">{state_html(ruleset, snapshot)}</div></section>'
    )
    mode = "pinned" if pinned else "live"
    return _document(f"{chat_id} · gmtags", body, _data(chat_id, mode, version(nodes, current)))


def embed_missing(chat_id: str, message: str, *, waiting: bool) -> str:
    """A short line in place of the state (no chat yet, or no such reply); `waiting`: the page
    loads itself once the chat has a reply."""
    back = "" if waiting else f' <a href="{embed_url(chat_id)}">Show the state now</a>'
    body = (
        f'<h1 class="embed-title">{esc(chat_id)}</h1>'
        f'<p id="viewing" class="viewing empty">{esc(message)}{back}</p>'
        '<p id="live" class="live-status" role="status" aria-live="polite"></p>'
        '<div id="state-body"></div>'
    )
    mode = "waiting" if waiting else "pinned"
    return _document(f"{chat_id} · gmtags", body, _data(chat_id, mode))


NO_GAME = "No game yet in this chat — play a turn."


__all__ = ["EMBED", "NO_GAME", "embed_missing", "embed_page", "embed_url", "reply_words"]
