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

A request continues its anchor when it ends with the anchor itself, or with
the anchor followed only by system messages or a nudge (a user message that
quotes the anchor's text, as SillyTavern's continue nudge does once "strict"
post-processing has made it a user message).

Decision (bounds): at most `CANDIDATES` nodes, the newest, are weighed for one
message, and a chain is followed up at most `CHAIN` pieces, so a request
costs the same however long its chat has grown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from gmtags.history.fingerprint import Fingerprint, fingerprint, message_text, normal_text
from gmtags.history.store import Node

CANDIDATES = 64
"""The most nodes weighed as the match of one message (the newest first)."""
CHAIN = 256
"""The most pieces a chain of continuations is followed up."""

SYSTEM_ROLES = frozenset({"system", "developer"})


class Nodes(Protocol):
    """What the anchor search reads: nodes by their end keys, and a node by its id."""

    def ending(
        self, keys: Iterable[str], tail: str | None, chat_id: str | None, limit: int
    ) -> list[Node]:
        """The newest `limit` nodes whose key is in `keys` or whose tail is `tail`."""
        ...

    def node(self, ident: int) -> Node:
        """The node with this id."""
        ...


@dataclass(slots=True)
class Said:
    """One message as a client sent it: its role and text, its fingerprint made when needed."""

    role: str
    text: str
    _print: Fingerprint | None = field(default=None, repr=False)

    @property
    def fingerprint(self) -> Fingerprint:
        """The message's fingerprint (SPEC §7.1)."""
        if self._print is None:
            self._print = fingerprint(self.text)
        return self._print


def said(messages: Sequence[Mapping[str, Any]]) -> list[Said]:
    """A request's messages as roles and texts."""
    return [
        Said(str(message.get("role", "")), message_text(message.get("content")))
        for message in messages
    ]


@dataclass(frozen=True, slots=True)
class Anchor:
    """The node a request goes on from, the message that matched it, and its chain's first node."""

    node: Node
    message: int
    first: Node


class _Reader:
    """Node reads for one search, each node read once."""

    def __init__(self, nodes: Nodes) -> None:
        self.nodes = nodes
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


def _matches(print_: Fingerprint, reader: _Reader, chat_id: str | None) -> list[tuple[Node, Node]]:
    keys, tail = print_.end_keys()
    found: list[tuple[Node, Node]] = []
    for node in reader.nodes.ending(keys, tail, chat_id, CANDIDATES):
        reader.cache.setdefault(node.id, node)
        first = reader.chain_start(print_, node)
        if first is not None:
            found.append((node, first))
    return found


def _ancestry(first: Node, messages: Sequence[Said], before: int, reader: _Reader) -> int:
    """How many of the assistant messages before `before` match `first`'s ancestors in turn."""
    count, parent = 0, first.parent
    for index in range(before - 1, -1, -1):
        if parent is None:
            break
        message = messages[index]
        if message.role != "assistant":
            continue
        start = reader.chain_start(message.fingerprint, reader.node(parent))
        if start is None:
            break
        count, parent = count + 1, start.parent
    return count


def find_anchor(messages: Sequence[Said], nodes: Nodes, chat_id: str | None) -> Anchor | None:
    """SPEC §7.1: the anchor of these messages among the nodes of `chat_id` (None: any chat)."""
    reader = _Reader(nodes)
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role != "assistant" or message.fingerprint.empty:
            continue
        found = _matches(message.fingerprint, reader, chat_id)
        if not found:
            continue
        if len(found) == 1:
            node, first = found[0]
        else:
            node, first = max(
                found, key=lambda pair: (_ancestry(pair[1], messages, index, reader), pair[0].id)
            )
        return Anchor(node, index, first)
    return None


def continues(messages: Sequence[Said], anchor: int) -> bool:
    """True when the messages end with message `anchor`, or after it hold only system
    messages and nudges (user messages quoting its text)."""
    quoted = normal_text(messages[anchor].text)
    for message in messages[anchor + 1 :]:
        if message.role in SYSTEM_ROLES:
            continue
        if message.role == "user" and quoted and quoted in normal_text(message.text):
            continue
        return False
    return True


def is_player_turn(messages: Sequence[Said]) -> bool:
    """True when the last message is the player's and the request holds more than the player's
    words (a system or an assistant message): a turn, a swipe or a regenerate."""
    if not messages or messages[-1].role != "user":
        return False
    return any(message.role in SYSTEM_ROLES or message.role == "assistant" for message in messages)
