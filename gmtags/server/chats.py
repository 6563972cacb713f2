"""Which chat a request belongs to, and the snapshot its reply starts from (SPEC §7.1).

Every request is placed by content (`gmtags.history.anchor`): its anchor is
the stored reply its last recognisable assistant message matches; the new
reply starts from the anchor's snapshot after (no anchor: the chat's start)
and is stored as a child node of it. The chat is `X-Gmtags-Chat` when the
request names one (the anchor is then looked for in that chat only), else the
chat holding the anchor, else a new chat with a fresh random id.

The chat's current node (what `GET /gmtags/chats/{chat}/state` shows) moves:
- to the anchor when a request arrives (the player is looking at it), or to
  the chat's start when the request matches no reply (a decision: the player
  deleted every reply, or opened another chat under the same header; the
  reply goes on from the start, so the state shown does too);
- to the new reply, once it is whole, when the request was the player's turn,
  swipe or regenerate (`anchor.is_player_turn`).
A continuation or a background reply (a request ending in a system message)
becomes current only when a later request anchors on it; a request with
neither a system nor an assistant message (SillyTavern's "Test Message") never
does. Nothing is deleted: a reply no later request anchors on stops mattering.

The reply's node, and so its seed (`gmtags.seeds`), is reserved when
the request arrives, so two requests racing on one message get two nodes. The
whole placement (finding the anchor, moving the current node, reserving the
node) is one transaction of the store (`HistoryStore.placing`) holding the
chat, so requests on one chat served by several processes, on one machine or
many (SPEC §12), are placed one after the other. A request naming no chat is
held from the moment its anchor names one: a node's place and reply never
change, so the anchor found before is still the one (its snapshot after, which
a page save may replace, is read again once the chat is held).
"""

from __future__ import annotations

import unicodedata
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from gmtags.errors import SnapshotError
from gmtags.history.anchor import (
    Anchor,
    Said,
    continues,
    find_anchor,
    is_conversation,
    is_player_turn,
    said,
)
from gmtags.history.excerpt import excerpt
from gmtags.history.fingerprint import Fingerprint, card_lines, fingerprint, receipts_in
from gmtags.history.prompted import find_prompt_anchor, prompt_chat
from gmtags.history.prompted import with_receipts as prompt_with_receipts
from gmtags.history.readback import shown_receipts, with_receipts
from gmtags.history.store import HistoryStore, Node, NodeKind
from gmtags.log import get_logger
from gmtags.server.events import ChatEvents
from gmtags.state.saves import apply_save
from gmtags.state.snapshot import Snapshot
from gmtags.tags.receipt import Receipt

CHAT_HEADER = "X-Gmtags-Chat"
MAX_CHAT_ID = 200
"""The longest chat id a header may give (an id is a key, not a document)."""


def chat_header(chat_id: str | None) -> dict[str, str]:
    """The `X-Gmtags-Chat` response header naming `chat_id`.

    Decision: a chat id that is not ASCII goes as its UTF-8 bytes, the bytes a
    client sent in its own `X-Gmtags-Chat` (HTTP carries such bytes as opaque
    field text; httpx, and so the openai client, reads them back as UTF-8),
    so a client that echoes the header names the same chat. Percent-encoding
    would make `%C3%89lise` a different chat from `Élise` when echoed; an id
    holding a control character cannot be a header at all and goes without.
    """
    if not chat_id:
        return {}
    try:
        raw = chat_id.encode("utf-8")
    except UnicodeEncodeError:
        return {}
    if any(byte < 0x20 or byte == 0x7F for byte in raw):
        return {}
    return {CHAT_HEADER: raw.decode("latin-1")}  # Starlette writes header text as latin-1


def chat_id_problem(chat_id: str) -> str | None:
    """Why `chat_id` cannot name a chat, or None: 1 to `MAX_CHAT_ID` characters, none of them a
    control character (an id goes in URLs and headers; a newline would make a chat no route
    can reach)."""
    if not chat_id or len(chat_id) > MAX_CHAT_ID:
        return f"must be 1 to {MAX_CHAT_ID} characters"
    if any(unicodedata.category(char) == "Cc" for char in chat_id):
        return "must hold no control characters"
    return None


def new_chat_id() -> str:
    """A fresh random chat id (a request with no header and no anchor starts a new chat)."""
    return f"chat-{uuid.uuid4().hex}"


@dataclass(frozen=True, slots=True)
class Turn:
    """One reply being made: its reserved node, what it hangs under, and where it starts."""

    node: Node
    anchor: Node | None
    before: Snapshot
    saves: frozenset[int] = frozenset()
    """The page saves `before` holds (`HistoryStore.saves`)."""
    spoken: tuple[Said, ...] = ()
    """The request's messages as placement read them."""
    match: Anchor | None = None
    """The anchor as placement found it: its message and the chain that message matched."""

    @property
    def chat_id(self) -> str:
        """The chat the reply belongs to."""
        return self.node.chat_id

    @property
    def seed(self) -> int:
        """The seed that rolls the reply's dice."""
        assert self.node.seed is not None
        return self.node.seed

    @property
    def kind(self) -> NodeKind:
        """A player's turn, a continuation, or an aside (background)."""
        return self.node.kind


class ChatBook:
    """The proxy's view of the history store: where each reply starts and what it left."""

    def __init__(self, store: HistoryStore, start: Snapshot) -> None:
        self.store = store
        self.start = start
        self.log = get_logger(component="chats")
        self.events = ChatEvents()
        """Told of every finished reply and every move of a chat's current node (the pages
        follow it); a page save calls `events.changed(chat_id)`."""

    def begin(self, named: str | None, messages: Sequence[Mapping[str, Any]]) -> Turn:
        """Place a request (`named`: its `X-Gmtags-Chat`, if any) and reserve its reply's node."""
        spoken = said(messages)
        with self.store.placing(named):
            anchor = find_anchor(spoken, self.store, named)
            chat_id = named or (anchor.node.chat_id if anchor is not None else new_chat_id())
            if named is None:
                self.store.lock_chat(chat_id)
                if anchor is not None:  # its snapshot after, as of now
                    anchor = replace(anchor, node=self.store.node(anchor.node.id))
            kind: NodeKind
            if anchor is not None and continues(spoken, anchor.message):
                kind = "continue"
            elif is_player_turn(spoken):
                kind = "turn"
            else:
                kind = "aside"
            turn, moved = self._place(chat_id, kind, is_conversation(spoken), anchor)
        turn = replace(turn, spoken=tuple(spoken), match=anchor)
        if moved:
            self.events.current(chat_id, turn.node.parent)
        return turn

    def begin_text(self, named: str | None, prompt: str) -> Turn:
        """Place a text prompt (SPEC §7.2: by the stored replies it holds,
        `gmtags.history.prompted`) and reserve its reply's node. A prompt is a turn unless it
        continues its anchor: a text prompt has no roles to tell a background task by."""
        with self.store.placing(named):
            receipts = receipts_in(prompt)  # (the prompt's receipts, in order: `prompted`)
            chat_id = named or prompt_chat(receipts, self.store)
            if chat_id is None:
                chat_id = new_chat_id()
            if named is None:
                self.store.lock_chat(chat_id)
            found = find_prompt_anchor(prompt, receipts, self.store, chat_id)
            anchor = None if found is None else Anchor(found.node, 0, found.node.id)
            kind: NodeKind = "continue" if found is not None and found.continues else "turn"
            turn, moved = self._place(chat_id, kind, True, anchor)
        turn = replace(turn, match=anchor)
        if moved:
            self.events.current(chat_id, turn.node.parent)
        return turn

    def _place(
        self, chat_id: str, kind: NodeKind, conversation: bool, anchor: Anchor | None
    ) -> tuple[Turn, bool]:
        """Inside the placement: the chat made known, its current node moved to where the
        player is (True when it moved: `conversation`, a request that is more than a test
        message), and the reply's node reserved as a `kind`."""
        self.store.ensure_chat(chat_id, self.start)
        name = self.store.start_name(chat_id) if anchor is None else anchor.node.after
        stored = self.store.snapshot(name)
        before, held = self._carried(chat_id, stored, None if anchor is None else anchor.node)
        parent = None if anchor is None else anchor.node.id
        moved = conversation and self.store.current_node(chat_id) != parent
        if moved:
            self.store.set_current(chat_id, parent)  # where the player now is
        # No save carried: the stored snapshot, named already.
        node = self.store.reserve(chat_id, parent, kind, name if before is stored else before)
        return Turn(node, None if anchor is None else anchor.node, before, held), moved

    def _carried(
        self,
        chat_id: str,
        snapshot: Snapshot,
        node: Node | None,
        held: frozenset[int] | None = None,
    ) -> tuple[Snapshot, frozenset[int]]:
        """`snapshot` (node `node`'s after, or the chat's start) with every page save of the chat
        it does not hold yet (SPEC §11: a save stays in play on every branch, whatever reply a
        request goes on from), and the saves it then holds; `snapshot` itself when it lacks
        none. `held` overrides what it holds already (a reply being made: what it started
        from)."""
        saves = self.store.saves(chat_id)
        if held is None:
            held = (
                node.saves
                if node is not None
                else frozenset(save.id for save in saves if save.node is None)
            )
        missing = [save for save in saves if save.id not in held]
        for save in missing:
            try:
                snapshot = apply_save(snapshot, self.store.saved(save))
            except SnapshotError as error:  # a name two cards now share: left out, and told
                self.log.warning("save-not-carried", chat=chat_id, save=save.id, error=str(error))
        return snapshot, held | {save.id for save in missing}

    def finish(
        self,
        turn: Turn,
        text: str,
        after: Snapshot,
        print_: Fingerprint | None = None,
        applied: Sequence[Receipt] = (),
    ) -> Node:
        """Store the reply as the player received it (`text`, or its fingerprint `print_` when
        already made) with the snapshot it left, the receipts of the commands it applied
        (SPEC §7.2: whatever the display mode) and its first words (the pages name it by)."""
        made = fingerprint(text) if print_ is None else print_
        after, held = self._carried(turn.chat_id, after, None, turn.saves)  # saved meanwhile
        # A reply that changed nothing hands its snapshot on as it was: no need to hash it.
        state: Snapshot | str = turn.node.before if after is turn.before else after
        node = self.store.complete(
            turn.node,
            state,
            made,
            current=turn.kind == "turn",
            saves=held,
            applied=tuple(receipt.render() for receipt in applied),
            excerpt=excerpt(text),
        )
        current = node.id if turn.kind == "turn" else self.store.current_node(node.chat_id)
        self.events.node(node.chat_id, node.id, node.parent, node.kind, current)
        return node

    def as_receipts(
        self, turn: Turn, messages: Sequence[Mapping[str, Any]]
    ) -> list[Mapping[str, Any]]:
        """SPEC §7.3: the request's messages with the cards of every assistant message placement
        matched replaced by the receipts they show (`gmtags.history.readback`)."""
        if not any(card_lines(said.text) for said in turn.spoken if said.role == "assistant"):
            return list(messages)  # no cards: nothing to read back (no store read)
        return with_receipts(messages, shown_receipts(turn.spoken, turn.match, self.store))

    def prompt_as_receipts(self, turn: Turn, prompt: str) -> str:
        """SPEC §7.3 for a text prompt: its cards read back as the receipts they show
        (`gmtags.history.prompted.with_receipts`)."""
        if turn.anchor is None or not card_lines(prompt):
            return prompt  # no cards: nothing to read back (no store read)
        return prompt_with_receipts(prompt, self.store, turn.anchor)

    def abandon(self, turn: Turn) -> None:
        """Forget a reply that was never made, and its chat when nothing else is in it (the
        request made it, and failed: SPEC §8 leaves no chat and no node)."""
        self.store.abandon(turn.node)
        self.store.forget_chat(turn.chat_id)

    def going_on_from(self, chat_id: str, node: Node | None) -> Snapshot:
        """The snapshot a turn written after `node` (None: the chat's start) starts from: the
        state after it with the page saves it lacks (the Game panel's state at a message,
        SPEC §13: a character saved since is in play there too)."""
        snapshot = self.store.start(chat_id) if node is None else self.store.snapshot(node.after)
        return self._carried(chat_id, snapshot, node)[0]

    def current(self, chat_id: str) -> Snapshot | None:
        """The chat's current snapshot, or None when the chat is unknown: with the page saves
        it lacks (the player swiped the reply a save was made on, and the new reply is still
        on its way: the next reply starts with them, so the state shown has them)."""
        if not self.store.has_chat(chat_id):  # (a failing store raises, never reads as none)
            return None
        ident = self.store.current_node(chat_id)
        node = None if ident is None else self.store.node(ident)
        snapshot = self.store.start(chat_id) if node is None else self.store.snapshot(node.after)
        return self._carried(chat_id, snapshot, node)[0]
