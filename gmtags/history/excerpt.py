"""A reply's first words, as the pages name it (SPEC §11: a timeline of replies).

A player tells replies apart by their story, not by a number: the state page
names each reply by the start of its narration. The excerpt is made once, when
the reply is stored (`nodes.excerpt`), from the text the player received:
receipts, tags still in the text, card lines (SPEC §7.3), reasoning blocks and
a speaker prefix are left out, and so are Markdown's marks (emphasis, code, a
heading's, a quote's); whitespace runs become one space. It is cut to
`EXCERPT_CHARS` at a word's end (inside one long word, at a character's end)
and then ends in "…".

Only the first `SCAN_CHARS` characters left once reasoning is out are read for
it; a reply that is all tags has no excerpt (""). The excerpt is text from the
model: the pages escape it.
"""

from __future__ import annotations

import regex

from gmtags.history.fingerprint import card_lines, strip_speaker
from gmtags.limits import DEFAULT_LIMITS
from gmtags.tags.scan import find_spans, without_reasoning

EXCERPT_CHARS = 90
"""The longest excerpt kept, its ellipsis included: a line or two of a narrow screen."""
SCAN_CHARS = 4000
"""How much of a reply's start is read for its excerpt: its first words are in it however
many tags come first (a tag is at most a few hundred characters)."""
ELLIPSIS = "…"

_SPACE = regex.compile(r"\s+")
_MARKUP = regex.compile(
    r"(?m)^[ \t]*(?:#{1,6}[ \t]|>+|[-+][ \t])[ \t]*"  # a heading, quote or list mark
    r"|[*`]+|~~"  # emphasis, code, strike-through
    r"|(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])"  # an underscore pair (never one inside a word)
)
_GRAPHEME = regex.compile(r"\X")
_TRAILING = " ,;:—–-([{\"'“‘"
"""What a cut excerpt does not end on before its ellipsis."""


def narration(text: str) -> str:
    """The narration that starts `text`: its first `SCAN_CHARS` characters without
    reasoning, speaker prefix, tags, receipts, card lines or Markdown marks, one line."""
    return _clean(_uncarded(text))


def _uncarded(text: str) -> str:
    """The start of `text` that `narration` reads, with what is not narration cut out (its
    lines kept apart), Markdown marks and spacing not yet cleaned."""
    whole = without_reasoning(text)
    head = strip_speaker(whole[:SCAN_CHARS])
    if len(whole) > SCAN_CHARS:  # a tag cut short at the end is no narration either
        opened = head.rfind("[")
        if opened > head.rfind("]"):
            head = head[:opened]
    cuts = [(s.start, s.end if s.complete else len(head)) for s in find_spans(head, DEFAULT_LIMITS)]
    pieces: list[str] = []
    at = 0
    for start, end in sorted(cuts + card_lines(head)):
        pieces.append(head[at:start])
        at = max(at, end)
    pieces.append(head[at:])
    return "\n".join(pieces)


def _clean(raw: str) -> str:
    return _SPACE.sub(" ", _MARKUP.sub("", raw)).strip()


def shorten(text: str, limit: int = EXCERPT_CHARS) -> str:
    """`text` in at most `limit` characters: whole when it fits, else cut at a word's end
    (a grapheme's end when one word fills half of it) and ended with "…"."""
    if len(text) <= limit:
        return text
    room = text[: limit - len(ELLIPSIS) + 1]
    space = room.rfind(" ")
    if space >= limit // 2:
        room = room[:space]
    else:
        kept = ""
        for grapheme in _GRAPHEME.findall(room):
            if len(kept) + len(grapheme) > limit - len(ELLIPSIS):
                break
            kept += grapheme
        room = kept
    return room.rstrip(_TRAILING) + ELLIPSIS


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A reply's first words as the pages name it: its narration, shortened.

    Made as each reply is stored, so only as much is cleaned as the words need: the
    cleaning is local (a mark, a run of spaces), so a start that cleans to well over
    `limit` characters gives the same first `limit` as the whole (`shorten` reads no
    further), and a longer start is cleaned only when it does not."""
    raw = _uncarded(text)
    window = 8 * limit
    while window < len(raw):
        start = _clean(raw[:window])
        if len(start) > limit + _MARGIN:
            return shorten(start, limit)
        window *= 4
    return shorten(_clean(raw), limit)


_MARGIN = 8
"""Characters at the end of a cleaned start that a mark or a space cut in two may change."""
