"""The state pages' documents: the chat list and one chat's page (SPEC §11).

Plain server-rendered HTML, the datasette way: every page works without
JavaScript (the timeline's links are `?node=<id>`), names its JSON twin, and
links the shared `base.css`; `state/state.js` follows the chat live and swaps
in the parts of the page it fetches again. Every text from a snapshot, a
reply or a chat id is escaped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from urllib.parse import quote

from gmtags.history.store import ChatSummary, Node
from gmtags.ruleset.model import Ruleset
from gmtags.server.pages.state_sheet import esc, state_html
from gmtags.server.pages.state_timeline import Timeline, anchor, iso_time
from gmtags.state.snapshot import Snapshot

STATIC = "/gmtags/static"
"""Where the wheel's static files are served (`gmtags/server/static`)."""


def chat_path(chat_id: str) -> str:
    """The chat's id as one path segment."""
    return quote(chat_id, safe="")


def document(title: str, body: str, *, scripts: Sequence[str] = (), data: str = "") -> str:
    """A whole page: the head with the shared style, the site header, `body` as its main."""
    tags = "".join(f'<script src="{STATIC}/{s}" defer></script>' for s in scripts)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{esc(title)}</title><link rel="icon" href="data:,">'
        f'<link rel="stylesheet" href="{STATIC}/base.css">'
        f'<link rel="stylesheet" href="{STATIC}/state/state.css">{tags}</head>'
        f"<body{data}>"
        '<a class="skip" href="#main">Skip to the content</a>'
        '<header class="site"><a class="brand" href="/gmtags/">gmtags</a></header>'
        f'<main id="main">{body}</main></body></html>'
    )


def index_page(chats: Sequence[ChatSummary]) -> str:
    """`/gmtags/`: every chat the proxy keeps, newest first, with its replies and last change."""
    rows = []
    for chat in chats:
        when = iso_time(chat.updated)
        shown = "—"
        if when is not None:
            shown = f'<time datetime="{esc(when)}">{esc(when[:19].replace("T", " "))} UTC</time>'
        rows.append(
            f'<tr><th scope="row"><a href="/gmtags/chats/{chat_path(chat.chat_id)}">'
            f"{esc(chat.chat_id)}</a></th><td>{chat.replies}</td><td>{shown}</td></tr>"
        )
    if rows:
        table = (
            '<table class="chats"><caption>Chats, the newest first</caption>'
            '<thead><tr><th scope="col">Chat</th><th scope="col">Replies</th>'
            f'<th scope="col">Updated</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
        )
    else:
        table = '<p class="none">No chats yet: point your chat UI at this proxy\'s /v1.</p>'
    body = (
        "<h1>Chats</h1>"
        f"{table}"
        '<p class="json">JSON: <a href="/gmtags/api/chats">/gmtags/api/chats</a></p>'
    )
    return document("Chats · gmtags", body)


def chat_page(
    ruleset: Ruleset,
    chat_id: str,
    snapshot: Snapshot,
    nodes: Sequence[Node],
    current: int | None,
    shown: int | None,
    chosen: bool,
) -> str:
    """`/gmtags/chats/{chat}`: the state after `shown` (None: the start) beside the timeline.

    `chosen` is whether the reader picked `shown` (`?node=`) rather than following the chat's
    current node; the page's script keeps following the chat either way. The timeline stays
    oldest first, as the chat reads and its swipes nest; the current reply, wherever it is
    in it, is one link away at the top of the page (`_jump`; the C key in `state.js`), and
    the "showing" line links the reply shown (the way back to it on a phone, where choosing
    a reply scrolls up to the state).
    """
    path = chat_path(chat_id)
    api = f"/gmtags/api/chats/{path}"
    tree = Timeline(nodes, current, shown)
    timeline = tree.html()
    where = _reply_named(tree, shown)
    if not chosen:
        viewing = f"Showing the state now, after {where}."
    elif shown == current:
        viewing = f"Showing the state after {where}, the current one."
    else:
        viewing = (
            f'Showing the state after {where}. <a href="/gmtags/chats/{path}">'
            "Back to the current state</a>"
        )
    # a reply's state is its node's snapshot; the state now is the chat JSON's `state` (with
    # the page saves it carries), which also stands for the start (no endpoint of its own)
    snapshot_api = f"{api}/nodes/{shown}" if chosen and shown is not None else api
    raw = json.dumps(snapshot.to_json_dict(), ensure_ascii=False, indent=2)
    body = (
        f'<nav class="crumbs" aria-label="Breadcrumb"><a href="/gmtags/">Chats</a> ›'
        f' <span aria-current="page">{esc(chat_id)}</span></nav>'
        f"<h1>{esc(chat_id)}</h1>"
        f'<div class="page-actions">{_jump(tree, current)}{_builder_links(ruleset, path)}</div>'
        '<div class="columns">'
        '<section id="state" class="state" aria-labelledby="state-heading">'
        '<h2 id="state-heading">State</h2>'
        f'<p id="viewing" class="viewing" tabindex="-1">{viewing}</p>'
        f'<div id="state-body">{state_html(ruleset, snapshot)}'
        '<details class="raw"><summary>Snapshot JSON</summary>'
        f"<pre>{esc(raw)}</pre></details></div></section>"
        '<section id="timeline" class="timeline" aria-labelledby="timeline-heading">'
        '<h2 id="timeline-heading">Replies</h2>'
        '<p id="live" class="live-status" role="status" aria-live="polite"></p>'
        f'<div id="timeline-body">{timeline}</div>'
        '<p class="hint">Choose a reply to see the state after it. Keys: <kbd>C</kbd> goes'
        " to the current reply; arrow keys, Home and End move between replies.</p>"
        # the page's foot, inside the columns: below them, it would push the state panel
        # (in view beside the replies) up off the window's top at the page's end
        f'<p class="json">JSON: <a href="{api}">this chat</a> · <a href="{snapshot_api}">'
        "this snapshot</a> · events: "
        f'<a href="{api}/events">{esc(api)}/events</a></p>'
        "</section></div>"
    )
    shown_attr = "current" if not chosen else "start" if shown is None else str(shown)
    data = f' data-api="{esc(api)}" data-shown="{esc(shown_attr)}"'
    return document(
        f"{chat_id} · gmtags", body, scripts=["state/follow.js", "state/state.js"], data=data
    )


def _reply_named(tree: Timeline, ident: int | None) -> str:
    """A reply as the "showing" line names it: its title, linked to its entry on the timeline
    (the way back to it once the state is scrolled to), and its first words."""
    title, words = tree.name(ident)
    said = f' <q class="reply-words">{esc(words)}</q>' if words else ""
    return f'<a class="to-reply" href="#{anchor(ident)}">{esc(title)}</a>{said}'


def _jump(tree: Timeline, current: int | None) -> str:
    """The way to the chat's current reply from the top of the page, however long the
    timeline (the page's script also answers the C key with it). Its own element, so
    `state.js` swaps it in when the current reply changes."""
    said = (
        "Current: the chat's start"
        if current is None
        else f"Current reply: {tree.name(current)[0]}"
    )
    return (
        f'<p id="jump" class="jump"><a class="jump-link" href="#{anchor(current)}"'
        f' aria-keyshortcuts="c">{esc(said)} <span aria-hidden="true">↓</span>'
        ' <kbd aria-hidden="true">C</kbd></a></p>'
    )


def _builder_links(ruleset: Ruleset, path: str) -> str:
    """Links to the builder page for this chat, for the builders the ruleset has (SPEC §11)."""
    links = []
    if ruleset.sheet.builder_model is not None:
        links.append(f'<a href="/gmtags/builder?chat={path}">Build a character</a>')
    if ruleset.party is not None and ruleset.party.builder_model is not None:
        links.append(f'<a href="/gmtags/builder?chat={path}&amp;party=1">Edit the party sheet</a>')
    return f'<p class="actions">{" · ".join(links)}</p>' if links else ""


def not_found_page(message: str) -> str:
    """A page for an unknown chat or reply."""
    body = f'<h1>Not found</h1><p>{esc(message)}</p><p><a href="/gmtags/">All chats</a></p>'
    return document("Not found · gmtags", body)
