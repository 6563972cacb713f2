"""Where a text prompt stands in its chat (SPEC §7.2: "a text prompt has no messages").

A Text Completion client sends one prompt: the chat so far laid out in its
instruct template, the next reply's opening last. It is placed as messages
are (SPEC §7.1), by content: by the stored replies whose text occurs in it.
A reply with receipts occurs where its receipts stand one after the other
among the prompt's receipts (an edit of the prose around them keeps it); a
reply without any, where its text stands, both compared as fingerprints
compare them (whitespace runs collapsed, the spaces beside `*` and `_`
dropped, reasoning left out). The **anchor** is the reply that occurs last;
of several ending at the same place (two swipes with the same text), the one
with the most ancestors occurring before it in order, then the newest. A
continued reply is its pieces one after the other, so its last piece ends
last. A prompt that ends with its anchor continues it (SillyTavern's Continue
sends the partial reply last, unclosed): for a reply known by its text, the
prompt ends with that text; for one known by its receipts (whose prose the
store does not keep), nothing after its last receipt looks like the start of
another turn, a turn separator of the instruct templates chat clients use
(`TURN_MARKS`: `<|im_start|>`, `<|eot_id|>`, `[INST]`, `</s>`, `### `, …)
and the prompt does not end by opening a reply with a speaker's name
(`Warden:`, `assistant:`: a chat laid out without an instruct template).

The chat: the one named (`X-Gmtags-Chat`, `/c/{chat}`), whose newest `RECENT`
replies are looked for; a prompt naming none is placed in the chat of the
newest reply that ends with the prompt's last receipt, and a prompt with no
receipt and no name is a new chat. Decision: a prompt's replies without
receipts cannot be looked up without knowing where each begins, so a client
that wants those placed names its chat (the SillyTavern extension always
does).

Bounds: the newest `RECENT` replies of the chat are looked for, those without receipts
within the prompt's last `TEXT_WINDOW` characters (where a chat's recent replies stand).

Cards (`--display cards`) are read back as in a list of messages
(`gmtags.history.readback`): before the prompt goes upstream, the card lines
of its anchor and of the anchor's ancestors occurring before it are replaced,
in order, by the receipts those replies applied (`with_receipts`), each reply
only when it holds as many cards as it applied commands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from gmtags.history.fingerprint import (
    Fingerprint,
    card_lines,
    emphasis_normal,
    normal_prompt,
    receipt_spans,
)
from gmtags.history.store import Head, Node

TURN_MARKS = (
    "<|im_start|>",
    "<|im_end|>",
    "<|eot_id|>",
    "<|start_header_id|>",
    "[INST]",
    "[/INST]",
    "</s>",
    "<end_of_turn>",
    "<start_of_turn>",
    "<|user|>",
    "<|model|>",
    "<|assistant|>",
    "<|end|>",
    "<|START_OF_TURN_TOKEN|>",
    "<|END_OF_TURN_TOKEN|>",
    "### ",
    "\nUSER:",
    "\nASSISTANT:",
)
"""Turn separators of instruct templates (ChatML, Llama 3, Mistral, Gemma, Phi, Metharme,
Command R, Alpaca, Vicuna): after a reply's last receipt, one of them means a later turn."""
RECENT = 2000
"""The most replies of a named chat (the newest) looked for in one prompt."""
_MARKS = tuple(mark.replace("\n", " ") for mark in TURN_MARKS)
"""The separators as they stand in a prompt normalised (line breaks as spaces)."""
SPEAKER = 64
"""The longest last line read as a speaker's name opening the next reply."""
TEXT_WINDOW = 64 * 1024
"""How far back from a prompt's end (normalised characters) a reply known by its text is
looked for: a search per reply of the chat, so a megabyte of prompt in a long chat does not
make placement slow; a reply known by its receipts is found anywhere (its receipts are
indexed once)."""
FOUND = 16
"""The most replies weighed as the one holding an unnamed prompt's last receipt."""


class PromptNodes(Protocol):
    """What placing a prompt reads from a store of nodes."""

    def exact(self, key: str, chat_id: str | None, limit: int) -> list[Head]:
        """The newest `limit` nodes whose fingerprint key is `key`."""
        ...

    def pieces(self, print_: Fingerprint, chat_id: str | None, limit: int) -> list[Node]:
        """The newest `limit` nodes that can end a chain of two or more making up `print_`."""
        ...

    def nodes(self, chat_id: str) -> list[Node]:
        """Every finished node of a chat, oldest first."""
        ...


@dataclass(frozen=True, slots=True)
class PromptAnchor:
    """The reply a prompt goes on from, and whether the prompt continues it."""

    node: Node
    continues: bool


@dataclass(frozen=True, slots=True)
class _Seen:
    """Where a reply occurs in the normalised prompt, and the index of its first receipt
    among the prompt's (-1: a reply known by its text)."""

    node: Node
    start: int
    end: int
    first: int


def prompt_chat(receipts: tuple[str, ...], nodes: PromptNodes) -> str | None:
    """The chat of the newest reply ending with the prompt's last receipt, if any."""
    if not receipts:
        return None
    whole, last = Fingerprint(receipts, ""), Fingerprint(receipts[-1:], "")
    found: list[Head | Node] = [
        *nodes.exact(whole.key, None, FOUND),
        *nodes.pieces(whole, None, FOUND),
        *nodes.exact(last.key, None, FOUND),
    ]
    return max(found, key=lambda node: node.id).chat_id if found else None


def find_prompt_anchor(
    prompt: str, receipts: tuple[str, ...], nodes: PromptNodes, chat_id: str
) -> PromptAnchor | None:
    """The anchor of a text prompt among the newest replies of chat `chat_id` (module doc)."""
    text = normal_prompt(prompt)
    seen = _seen(text, receipts, nodes, chat_id)
    if not seen:
        return None
    end = max(found.end for found in seen.values())
    last = [found for found in seen.values() if found.end == end]
    chosen = max(last, key=lambda found: (len(_chain(found, seen)), found.node.id))
    after = text[end:]
    if chosen.node.fingerprint.receipts:
        later = any(mark in after for mark in _MARKS) or _opens_reply(prompt)
        return PromptAnchor(chosen.node, not later)
    return PromptAnchor(chosen.node, not after.strip())


def with_receipts(prompt: str, nodes: PromptNodes, anchor: Node) -> str:
    """The prompt with the cards of `anchor` and of its ancestors occurring before it read
    back as the receipts those replies applied (module doc)."""
    if not card_lines(prompt):
        return prompt
    spans = list(
        (receipt, start, end, card)
        for receipt, start, end, card in receipt_spans(prompt)
        if receipt is not None
    )
    receipts = tuple(receipt for receipt, *_ in spans)
    seen = _seen(normal_prompt(prompt), receipts, nodes, anchor.chat_id)
    found = seen.get(anchor.id)
    if found is None:
        return prompt
    swaps: list[tuple[int, int, str]] = []
    for reply in [found, *_chain(found, seen)]:
        applied = reply.node.receipts
        shown = spans[reply.first : reply.first + len(reply.node.fingerprint.receipts)]
        if reply.first < 0 or len(applied) != len(shown):
            continue
        swaps += [
            (start, end, receipt)
            for (_, start, end, card), receipt in zip(shown, applied, strict=True)
            if card
        ]
    out: list[str] = []
    at = 0
    for start, end, receipt in sorted(swaps):
        out += [prompt[at:start], receipt]
        at = end
    return "".join([*out, prompt[at:]])


def _seen(
    text: str, receipts: tuple[str, ...], nodes: PromptNodes, chat_id: str
) -> dict[int, _Seen]:
    """The newest replies of the chat that occur in the normalised prompt, by node id."""
    spots = _spots(text, receipts)
    starts: dict[str, list[int]] = {}
    for index, receipt in enumerate(receipts):
        starts.setdefault(receipt, []).append(index)
    seen: dict[int, _Seen] = {}
    for node in nodes.nodes(chat_id)[-RECENT:]:
        found = _occurrence(node.fingerprint, text, receipts, spots, starts)
        if found is not None:
            seen[node.id] = _Seen(node, *found)
    return seen


def _opens_reply(prompt: str) -> bool:
    """Whether the prompt's last line is a speaker's name opening the next reply (`Warden:`)."""
    last = prompt.rstrip(" \t").rsplit("\n", 1)[-1]
    return last.endswith(":") and len(last) <= SPEAKER


def _spots(text: str, receipts: Sequence[str]) -> list[tuple[int, int]]:
    """Where each receipt stands in the normalised prompt, in order."""
    spots: list[tuple[int, int]] = []
    at = 0
    for receipt in receipts:
        written = emphasis_normal(receipt)
        start = text.find(written, at)
        if start < 0:  # not expected: a receipt's text is part of the prompt's
            start = at
        at = start + len(written)
        spots.append((start, at))
    return spots


def _occurrence(
    print_: Fingerprint,
    text: str,
    receipts: Sequence[str],
    spots: Sequence[tuple[int, int]],
    starts: dict[str, list[int]],
) -> tuple[int, int, int] | None:
    """Where a reply with this fingerprint last occurs in the prompt (start, end, and the
    index of its first receipt, -1 for a text), if it does."""
    if print_.receipts:
        size = len(print_.receipts)
        for first in reversed(starts.get(print_.receipts[0], [])):
            if tuple(receipts[first : first + size]) == print_.receipts:
                return spots[first][0], spots[first + size - 1][1], first
        return None
    if not print_.text:
        return None
    start = text.rfind(print_.text, max(0, len(text) - TEXT_WINDOW))
    return None if start < 0 else (start, start + len(print_.text), -1)


def _chain(found: _Seen, seen: dict[int, _Seen]) -> list[_Seen]:
    """The reply's ancestors that occur before it, one after the other, newest first."""
    chain: list[_Seen] = []
    at = found
    while at.node.parent is not None:
        parent = seen.get(at.node.parent)
        if parent is None or parent.end > at.start:
            break
        chain.append(parent)
        at = parent
    return chain
