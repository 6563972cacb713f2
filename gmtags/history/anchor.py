"""Where a request stands in its chat: its anchor, found by content (SPEC §7.1).

A request (or a saved chat file) is a list of messages. Its **anchor** is the
node matched by the last assistant message in it that matches any node: a
message matches a node when its fingerprint equals the node's, or equals the
fingerprints of a chain of nodes, each the parent of the next, ending at that
node (a reply and its continuations, which SillyTavern saves as one
message). When several nodes match, the one whose ancestors also match the
request's earlier assistant messages (the longest such chain) wins, then the
newest. A new reply starts from the anchor's snapshot after and hangs under
it. Neither the number of messages nor the first messages ever count.

The tie-break walks all matching nodes back together, one earlier assistant
message at a time, with one batched read per step, and stops as soon as one
is left: replies with the same receipts are common in a long campaign (a
reply that only spends one oil), and they part at the first earlier reply
that differs.

A request continues its anchor when it ends with the anchor itself, or with
the anchor followed only by system messages or a nudge (a user message that
quotes the anchor's text, as SillyTavern's continue nudge does once "strict"
post-processing has made it a user message).

Decision (bounds, so a request costs the same however long its chats grow):
at most `EXACT` nodes, the newest, are weighed as a message's exact match and
`CHAINED` as the last piece of a chain, and a chain is followed up at most
`CHAIN` pieces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from gmtags.history.fingerprint import Fingerprint, fingerprint, message_text, normal_text
from gmtags.history.store import Head, Node

EXACT = 1000
"""The most nodes weighed as the exact match of one message (the newest first)."""
CHAINED = 256
"""The most nodes weighed as the last piece of a chain making up one message."""
CHAIN = 256
"""The most pieces a chain of continuations is followed up."""

SYSTEM_ROLES = frozenset({"system", "developer"})


class Nodes(Protocol):
    """What the anchor search reads from a store of nodes."""

    def exact(self, key: str, chat_id: str | None, limit: int) -> list[Head]:
        """The newest `limit` nodes whose fingerprint key is `key`."""
        ...

    def pieces(self, print_: Fingerprint, chat_id: str | None, limit: int) -> list[Node]:
        """The newest `limit` nodes that can end a chain of two or more making up `print_`."""
        ...

    def heads(self, idents: Iterable[int]) -> dict[int, Head]:
        """The nodes among `idents`, without their fingerprints."""
        ...

    def node(self, ident: int) -> Node:
        """The node with this id."""
        ...


@dataclass(slots=True)
class Said:
    """One message as a client sent it: its role and content (a string, or a list of parts);
    its text and fingerprint are made when first needed (most messages of a long request are
    never looked at)."""

    role: str
    content: Any
    _text: str | None = field(default=None, repr=False)
    _print: Fingerprint | None = field(default=None, repr=False)

    @property
    def text(self) -> str:
        """The message's text."""
        if self._text is None:
            self._text = message_text(self.content)
        return self._text

    @property
    def fingerprint(self) -> Fingerprint:
        """The message's fingerprint (SPEC §7.1)."""
        if self._print is None:
            self._print = fingerprint(self.text)
        return self._print


def said(messages: Sequence[Mapping[str, Any]]) -> list[Said]:
    """A request's messages as roles and contents."""
    return [Said(str(message.get("role", "")), message.get("content")) for message in messages]


@dataclass(frozen=True, slots=True)
class Anchor:
    """The node a request goes on from, the message that matched it, and the first node of the
    chain the message matched (the node itself for an exact match)."""

    node: Node
    message: int
    first: int


@dataclass(frozen=True, slots=True)
class _Match:
    """A chain of nodes making up a message: its last node, its first, and the parent of its
    first (where the chat's earlier replies go on, None: the start)."""

    end: int
    first: int
    before: int | None


class _Search:
    """One anchor search: its store, its chat, and the nodes it has read."""

    def __init__(self, nodes: Nodes, chat_id: str | None) -> None:
        self.nodes = nodes
        self.chat_id = chat_id
        self.cache: dict[int, Node] = {}

    def node(self, ident: int) -> Node:
        found = self.cache.get(ident)
        if found is None:
            found = self.cache[ident] = self.nodes.node(ident)
        return found

    def chain_start(self, print_: Fingerprint, end: Node) -> Node | None:
        """The first node of a chain ending at `end` that makes up `print_`, if there is one."""
        rest, node = print_, end
        for _ in range(CHAIN):
            if not rest.ends_with(node.fingerprint):
                return None
            rest = rest.without_end(node.fingerprint)
            if rest.empty:
                return node
            if node.parent is None:
                return None
            node = self.node(node.parent)
        return None

    def matches(self, print_: Fingerprint) -> list[_Match]:
        """Every node (within the bounds) that `print_` matches, exactly or as a chain."""
        found = [
            _Match(head.id, head.id, head.parent)
            for head in self.nodes.exact(print_.key, self.chat_id, EXACT)
        ]
        for node in self.nodes.pieces(print_, self.chat_id, CHAINED):
            self.cache.setdefault(node.id, node)
            first = self.chain_start(print_, node)
            if first is not None:
                found.append(_Match(node.id, first.id, first.parent))
        return found

    def ends_here(self, print_: Fingerprint, head: Head) -> tuple[bool, int | None]:
        """Whether a chain ending at `head` makes up `print_`, and the parent of its first node
        (the full node is read only when `head`'s keys say such a chain can end there)."""
        if head.key == print_.key:
            return True, head.parent
        keys, tail = print_.end_keys()
        fits = head.key in keys or (tail is not None and head.tail == tail)
        if not fits or head.size >= print_.size:
            return False, None
        start = self.chain_start(print_, self.node(head.id))
        return (False, None) if start is None else (True, start.parent)

    def best(self, found: list[_Match], messages: Sequence[Said], index: int) -> _Match:
        """The match whose ancestors match the most earlier assistant messages, then the newest."""
        alive = {match.end: (match, match.before) for match in found}
        for earlier in range(index - 1, -1, -1):
            if len(alive) <= 1:
                break
            message = messages[earlier]
            if message.role != "assistant":
                continue
            heads = self.nodes.heads(at for _, at in alive.values() if at is not None)
            survivors: dict[int, tuple[_Match, int | None]] = {}
            for end, (match, at) in alive.items():
                head = None if at is None else heads.get(at)
                if head is not None:
                    matched, before = self.ends_here(message.fingerprint, head)
                    if matched:
                        survivors[end] = (match, before)
            if not survivors:
                break
            alive = survivors
        return alive[max(alive)][0]


def find_anchor(messages: Sequence[Said], nodes: Nodes, chat_id: str | None) -> Anchor | None:
    """SPEC §7.1: the anchor of these messages among the nodes of `chat_id` (None: any chat)."""
    search = _Search(nodes, chat_id)
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role != "assistant" or message.fingerprint.empty:
            continue
        found = search.matches(message.fingerprint)
        if not found:
            continue
        chosen = found[0] if len(found) == 1 else search.best(found, messages, index)
        return Anchor(search.node(chosen.end), index, chosen.first)
    return None


def matched_chains(
    messages: Sequence[Said], anchor: Anchor, nodes: Nodes
) -> list[tuple[int, list[Node]]]:
    """The assistant messages the anchor and its ancestors match, newest first: each one's
    index and the chain of nodes (first to last) it matches; the anchor's message first.

    Going back from the anchor's chain, each earlier assistant message is tried against
    a chain ending at the parent of the chain found last (SPEC §7.1: continuations make
    one message); a message that matches it not (an edit, a reply gmtags never made) is
    passed over.
    """
    search = _Search(nodes, anchor.node.chat_id)
    search.cache[anchor.node.id] = anchor.node
    chain = _chain(search, anchor.node, anchor.first)
    found = [(anchor.message, chain)]
    at = chain[0].parent
    for index in range(anchor.message - 1, -1, -1):
        if at is None:
            break
        message = messages[index]
        if message.role != "assistant" or message.fingerprint.empty:
            continue
        first = search.chain_start(message.fingerprint, search.node(at))
        if first is None:
            continue
        chain = _chain(search, search.node(at), first.id)
        found.append((index, chain))
        at = first.parent
    return found


def _chain(search: _Search, end: Node, first: int) -> list[Node]:
    """The nodes from `first` to `end`, following parents back from `end`."""
    chain = [end]
    while chain[-1].id != first and chain[-1].parent is not None and len(chain) <= CHAIN:
        chain.append(search.node(chain[-1].parent))
    return chain[::-1]


def continues(messages: Sequence[Said], anchor: int) -> bool:
    """True when the messages end with message `anchor`, or after it hold only system
    messages and nudges (user messages quoting its text)."""
    quoted: str | None = None
    for message in messages[anchor + 1 :]:
        if message.role in SYSTEM_ROLES:
            continue
        if message.role != "user":
            return False
        if quoted is None:
            quoted = normal_text(messages[anchor].text)
        if not quoted or len(message.text) < len(quoted) or quoted not in normal_text(message.text):
            return False
    return True


def is_conversation(messages: Sequence[Said]) -> bool:
    """True when the request holds more than a user's words (a system or an assistant message):
    anything but SillyTavern's "Test Message" (`Hi` alone)."""
    return any(message.role in SYSTEM_ROLES or message.role == "assistant" for message in messages)


def is_player_turn(messages: Sequence[Said]) -> bool:
    """True when the last message is the player's in a conversation: a turn, a swipe or a
    regenerate."""
    return bool(messages) and messages[-1].role == "user" and is_conversation(messages)
