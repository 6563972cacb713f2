"""Lay receipts back into the response: receipt text, display narration, dice cards.

SPEC §1 and §3: the saved text keeps every tag rewritten as its receipt; the
display narration hides tags (a line holding only tags goes, line break and
all; an inline tag goes with one adjacent space); the card view puts a
one-line card where each tag was, on a line of its own (§7.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gmtags.tags.receipt import Receipt


@dataclass(frozen=True, slots=True)
class Placed:
    """A receipt and the span `[start, end)` its tag occupied in the response."""

    start: int
    end: int
    receipt: Receipt


def _replace(text: str, placed: Sequence[Placed], pieces: Sequence[str]) -> str:
    out: list[str] = []
    pos = 0
    for item, piece in zip(placed, pieces, strict=True):
        out.append(text[pos : item.start])
        out.append(piece)
        pos = item.end
    out.append(text[pos:])
    return "".join(out)


def receipt_text(text: str, placed: Sequence[Placed]) -> str:
    """The response with every tag rewritten as its receipt."""
    return _replace(text, placed, [item.receipt.render() for item in placed])


def card_text(text: str, placed: Sequence[Placed]) -> str:
    """The response with every tag replaced by its one-line card, on a line of its own.

    SPEC §7.3: a card is preceded by a newline unless it starts the text or
    follows one, and followed by a newline unless its tag ended the text or is
    followed by one, so a client stores each card where it reads back as a line.
    The stream's card view (`gmtags.stream.views`) writes the same text.
    """
    out: list[str] = []
    pos = 0
    for item in placed:
        out.append(text[pos : item.start])
        out.append(card_piece(item.receipt.card, after_newline(out), item.end, text))
        pos = item.end
    out.append(text[pos:])
    return "".join(out)


def after_newline(out: Sequence[str]) -> bool:
    """True when the text written so far is empty or ends with a newline."""
    last = next((piece for piece in reversed(out) if piece), "")
    return not last or last.endswith("\n")


def card_piece(card: str, at_line_start: bool, end: int, text: str) -> str:
    """A card with the newlines that put it on a line of its own (SPEC §7.3)."""
    before = "" if at_line_start else "\n"
    after = "" if end >= len(text) or text[end] in "\r\n" else "\n"
    return f"{before}{card}{after}"


def display_text(text: str, placed: Sequence[Placed]) -> str:
    """The narration a player reads: tags hidden cleanly."""
    if not placed:
        return text
    cuts: list[tuple[int, int]] = []
    i = 0
    while i < len(placed):
        # The lines the tags from i on lie on: a tag may cross a line break (a fence, §2.1).
        line_start = text.rfind("\n", 0, placed[i].start) + 1
        line_end = _line_end(text, placed[i].end)
        j = i + 1
        while j < len(placed) and placed[j].start < line_end:
            line_end = max(line_end, _line_end(text, placed[j].end))
            j += 1
        line_tags = placed[i:j]
        if _only_tags(text, line_start, line_end, line_tags):
            cuts.append((line_start, line_end))
        else:
            cuts.extend(_inline_cuts(text, line_tags, line_start, line_end))
        i = j
    out: list[str] = []
    pos = 0
    for start, end in cuts:
        out.append(text[pos:start])
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _line_end(text: str, pos: int) -> int:
    """Just after the line break that ends the line `pos` is on (or the text's end).

    A tag that ends just before a line break ends its line there; one that ends
    with a line's last character (a fence's closing line) ends at that break too.
    """
    newline = text.find("\n", pos)
    return len(text) if newline < 0 else newline + 1


def _only_tags(text: str, start: int, end: int, tags: Sequence[Placed]) -> bool:
    pos = start
    for item in tags:
        if text[pos : item.start].strip():
            return False
        pos = item.end
    return not text[pos:end].strip()


_OPENING = frozenset("\"'(“‘«¿¡[{")


def _opens(text: str, taken: int, start: int) -> bool:
    """Whether the tag at `start` begins its line's narration, or a quote or bracket."""
    return not text[taken:start].strip() or text[start - 1] in _OPENING


def _inline_cuts(
    text: str, tags: Sequence[Placed], line_start: int, line_end: int
) -> list[tuple[int, int]]:
    """Each tag with one adjacent space: the one before it, else the one after it when
    only whitespace or tags come before it on its line or it follows an opening quote or
    bracket. A tag between other narration and a space keeps the space (`Done.[tag]
    Next.` shows `Done. Next.`, never glued; `"[tag] Run"` shows `"Run"`)."""
    cuts: list[tuple[int, int]] = []
    taken = line_start  # nothing before this index may be cut again
    for item in tags:
        start, end = item.start, item.end
        if start > taken and text[start - 1] == " ":
            start -= 1
        elif end < line_end and text[end] == " " and _opens(text, taken, start):
            end += 1
        cuts.append((start, end))
        taken = end
    return cuts
