"""A message's fingerprint: what identifies a reply when a client sends it back (SPEC §7.1).

Chat front ends resend replies in later requests, trimmed, renamed, merged
with their continuations, their prose edited. gmtags recognises them by
content, never by position:

- a message that holds gmtags receipts is known by the ordered list of them
  (an edit of the prose around them keeps it); each receipt is its tag text
  with whitespace runs collapsed. A card line (SPEC §7.3: a line starting
  with a card marker and a space, as `--display cards` writes it, the first
  line also after a speaker prefix) counts as a receipt too, its text with
  whitespace collapsed, so a message showing cards is known by its cards, in
  order with any receipts (`card_lines`);
- any other message by its text, whitespace runs collapsed and trimmed, with
  a leading speaker prefix ignored: up to 64 characters ending in `": "` on
  its first line, as SillyTavern's names modes add ("Gamemaster: …").
  Decision: whitespace next to `*` or `_` is dropped too, because
  SillyTavern's markdown fix (on by default) moves the spaces just inside an
  emphasis pair of every reply it saves ("*He nods. *" becomes "*He nods.*").
  Reasoning blocks (`<think>…</think>`, SPEC §2.1) are left out too: a client
  that parses reasoning (SillyTavern's auto-parse) keeps them apart from the
  reply it sends back.

The pieces of a chain (a reply and its continuations) join as texts joined
with one space, so SillyTavern's `partial + " " + continuation` and the
"merge" post-processing's blank line compare equal: receipts lists are
concatenated, texts joined with `" "`.

Lookups go through two keys a store can index (`key`, `tail`): the hash of
the whole fingerprint, and the hash of its end (the last receipt, or the last
`EDGE` characters of a text of at least that length). Any chain whose pieces
make up a fingerprint ends with a piece whose own key or tail the message's
`end_keys` hold, so one indexed lookup finds every candidate.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import regex

from gmtags.limits import DEFAULT_LIMITS, Limits
from gmtags.tags.card import MARKERS, is_card_line
from gmtags.tags.scan import find_spans, without_reasoning
from gmtags.text import mend_surrogates

EDGE = 64
"""Characters of a text's end that its tail key covers (and the longest speaker prefix)."""

_SPACE = regex.compile(r"\s+")
_EMPHASIS_SPACE = regex.compile(r"\s*([*_]+)\s*")
_RESULT = regex.compile(r"(?<![A-Za-z0-9_])result[ \t]*=[ \t]*[\"\u201c\u201d]")
_KEY_BYTES = 16


def _hash(kind: str, text: str) -> str:
    digest = hashlib.sha256(f"{kind}\0{text}".encode("utf-8", "surrogatepass")).digest()
    return digest[:_KEY_BYTES].hex()


def _collapse(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def strip_speaker(text: str) -> str:
    """`text` without a leading `Name: ` of at most `EDGE` characters on its first line.

    A name holds no bracket or quote, so a tag's own `[clock: ` is never taken for one.
    """
    body = text.lstrip()
    line_end = body.find("\n")
    first = body if line_end < 0 else body[:line_end]
    colon = first.find(": ", 0, EDGE - 1)
    if colon <= 0 or any(mark in first[:colon] for mark in '[]"\u201c\u201d'):
        return body
    return body[colon + 2 :]


_CARD_STARTS = frozenset(marker[0] for marker in MARKERS)


def card_lines(text: str) -> list[tuple[int, int]]:
    """The card lines of `text` (SPEC §7.3), in order: where each card starts and where its
    line ends (before the line break). The first line's card may follow a speaker prefix."""
    if not any(char in text for char in _CARD_STARTS):
        return []
    found: list[tuple[int, int]] = []
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line = text[start:end]
        if is_card_line(line):
            found.append((start, end))
        elif start == 0 and is_card_line(spoken := strip_speaker(line)):
            found.append((end - len(spoken), end))
        start = end + 1
    return found


def iter_receipts(text: str, limits: Limits = DEFAULT_LIMITS) -> Iterator[str | None]:
    """Each tag span of `text` in order: its receipt (a whole tag that carries `result=`,
    whitespace collapsed), or None for a span that is not one; each card line, its text
    collapsed, in its place among them (a span inside a card line is part of the card). A
    caller can pause between spans (the proxy does, on a very long reply)."""
    for receipt, _start, _end, _card in receipt_spans(text, limits):
        yield receipt


def receipt_spans(
    text: str, limits: Limits = DEFAULT_LIMITS
) -> Iterator[tuple[str | None, int, int, bool]]:
    """`iter_receipts` with where each stands in `text` (start, end) and whether it is a card
    line (whose receipt is its text collapsed)."""
    cards = card_lines(text)
    next_card = 0
    for span in find_spans(text, limits):
        while next_card < len(cards) and cards[next_card][1] <= span.start:
            start, end = cards[next_card]
            yield _collapse(text[start:end]), start, end, True
            next_card += 1
        if next_card < len(cards) and cards[next_card][0] < span.end:
            continue  # inside a card line
        tag = text[span.start : span.end]
        receipt = _collapse(tag) if span.complete and _RESULT.search(tag) else None
        yield receipt, span.start, span.end, False
    for start, end in cards[next_card:]:
        yield _collapse(text[start:end]), start, end, True


def receipts_in(text: str, limits: Limits = DEFAULT_LIMITS) -> tuple[str, ...]:
    """The gmtags receipts in `text`, in order."""
    return tuple(receipt for receipt in iter_receipts(text, limits) if receipt is not None)


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """A message's identity: its receipts when it has any, else its normalised text."""

    receipts: tuple[str, ...]
    text: str
    """The normalised text; empty when the fingerprint is made of receipts."""

    @property
    def kind(self) -> str:
        """ "r" for a receipts fingerprint, "t" for a text one."""
        return "r" if self.receipts else "t"

    @property
    def key(self) -> str:
        """The hash of the whole fingerprint."""
        if self.receipts:
            return _hash("r", "\x1e".join(self.receipts))
        return _hash("t", self.text)

    @property
    def tail(self) -> str | None:
        """The hash of the fingerprint's end: its last receipt, or its last `EDGE` characters."""
        if self.receipts:
            return _hash("r1", self.receipts[-1])
        return _hash("te", self.text[-EDGE:]) if len(self.text) >= EDGE else None

    def end_keys(self) -> tuple[set[str], str | None]:
        """The keys and the tail under which every piece that can end this fingerprint is found.

        A chain's last piece either covers at least the last `EDGE` characters
        (its tail equals this tail) or is a shorter text that follows a space
        within them (its key is among the keys); a receipts chain's last piece
        ends with this fingerprint's last receipt.
        """
        if self.receipts:
            return {self.key}, self.tail
        keys = {self.key}
        start = max(0, len(self.text) - EDGE)
        for index in range(start, len(self.text)):
            if self.text[index] == " ":
                keys.add(_hash("t", self.text[index + 1 :]))
        return keys, self.tail

    def ends_with(self, piece: Fingerprint) -> bool:
        """True when `piece` can be the last piece of a chain making up this fingerprint."""
        if piece.empty:
            return False
        if self.receipts:
            size = len(piece.receipts)
            return size > 0 and self.receipts[len(self.receipts) - size :] == piece.receipts
        if piece.receipts:
            return False
        return self.text == piece.text or self.text.endswith(" " + piece.text)

    def without_end(self, piece: Fingerprint) -> Fingerprint:
        """What is left of this fingerprint before `piece` (which `ends_with` accepted)."""
        if self.receipts:
            return Fingerprint(self.receipts[: len(self.receipts) - len(piece.receipts)], "")
        return Fingerprint((), self.text[: max(0, len(self.text) - len(piece.text) - 1)])

    @property
    def size(self) -> int:
        """How much the fingerprint holds: its receipts, or its text's characters. A chain's
        last piece is smaller than the whole it ends."""
        return len(self.receipts) if self.receipts else len(self.text)

    @property
    def empty(self) -> bool:
        """True when nothing is left (no receipts and no text)."""
        return not self.receipts and not self.text


def fingerprint(text: str, limits: Limits = DEFAULT_LIMITS) -> Fingerprint:
    """SPEC §7.1: the fingerprint of a message's text."""
    text = mend_surrogates(text)
    return of_receipts(receipts_in(text, limits), text)


def of_receipts(receipts: tuple[str, ...], text: str) -> Fingerprint:
    """The fingerprint of `text` (surrogates mended) whose receipts are `receipts`."""
    return Fingerprint(receipts, "") if receipts else Fingerprint((), normal_text(text))


def normal_text(text: str) -> str:
    """A text as a text fingerprint holds it (see the module docstring)."""
    return _EMPHASIS_SPACE.sub(r"\1", _collapse(strip_speaker(without_reasoning(text))))


def emphasis_normal(text: str) -> str:
    """`text` with the whitespace beside `*` and `_` runs dropped (see the module docstring)."""
    return _EMPHASIS_SPACE.sub(r"\1", text)


def normal_prompt(text: str) -> str:
    """A text prompt as replies are looked for in it: normalised as a text fingerprint is,
    but for the speaker prefix (`gmtags.history.prompted`)."""
    return emphasis_normal(_collapse(without_reasoning(mend_surrogates(text))))


def join(pieces: Iterable[Fingerprint]) -> Fingerprint:
    """The fingerprint of a chain: receipts concatenated, else texts joined with a space."""
    listed = list(pieces)
    receipts = tuple(r for piece in listed for r in piece.receipts)
    if receipts:
        return Fingerprint(receipts, "")
    return Fingerprint((), " ".join(piece.text for piece in listed if piece.text))


def message_text(content: object) -> str:
    """The text of an OpenAI message's `content`: a string, or the text parts of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text_parts(content))
    return ""


def _text_parts(parts: list[object]) -> Iterator[str]:
    for part in parts:
        if isinstance(part, dict) and part.get("type") == "text":
            text = part.get("text")
            if isinstance(text, str):
                yield text
