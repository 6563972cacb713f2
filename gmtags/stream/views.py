"""What the stream filter shows: receipts, cards, or the display narration.

Each view is told every decided tag (in order) and the frontier (everything
before it is decided: narration, or tags already placed), and returns the
text that can be shown now. A view never shows text it might have to take
back, so the concatenated output equals the whole-text rendering of
`gmtags.tags.render`.

Most chunks of a reply are narration in which no tag can start. For those the
filter skips the window and the view (issue 16): once a view says it can
flow (`can_flow`: what it holds back, and whether that sits mid-line), the
filter shows such chunks itself, in the same pass that looks for a `[`
(`StreamProcessor.feed`); `resume` tells the view where the response has got
to when the filter needs the window again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from gmtags.stream.window import Window
from gmtags.tags.receipt import Receipt
from gmtags.tags.render import Placed, display_text


class View(Protocol):
    """One way of showing the stream."""

    verbatim: bool
    """True when narration that flows is shown as it comes (receipts, cards); False for
    display, where whitespace a tag may still take waits (`StreamProcessor._narration`)."""

    def place(self, window: Window, item: Placed) -> str:
        """A tag was decided (after every earlier one); return what can be shown."""
        ...

    def advance(self, window: Window, frontier: int, final: bool) -> str:
        """Everything before `frontier` is decided; `final` at the end of the response."""
        ...

    @property
    def needed(self) -> int:
        """The first absolute position the view may still read."""
        ...

    @property
    def mid_line(self) -> bool:
        """`needed` is past narration that is not whitespace on its line (always, if verbatim)."""
        ...

    def can_flow(self, window: Window, frontier: int) -> str | None:
        """After `advance` to `frontier` (no tag pending): None if the text after it may
        not flow, else the text the view holds back before `frontier` (whitespace)."""
        ...

    def resume(self, start: int, mid_line: bool, last: str | None = None) -> None:
        """The text that flowed is shown up to absolute `start` (then `mid_line` or not);
        `last` is the last character that flowed (None when none did)."""
        ...


class ReplaceView:
    """Narration as it comes, each tag replaced by its receipt (or its card) once decided."""

    verbatim = True
    mid_line = True

    def __init__(self, piece: Callable[[Receipt], str]) -> None:
        self._piece = piece
        self._shown = 0

    @property
    def needed(self) -> int:
        return self._shown

    def place(self, window: Window, item: Placed) -> str:
        text = window.slice(self._shown, item.start) + self._piece(item.receipt)
        self._shown = item.end
        return text

    def advance(self, window: Window, frontier: int, final: bool) -> str:
        text = window.slice(self._shown, frontier)
        self._shown = frontier
        return text

    def can_flow(self, window: Window, frontier: int) -> str | None:
        return "" if self._shown == frontier else None

    def resume(self, start: int, mid_line: bool, last: str | None = None) -> None:
        self._shown = start


def receipts_view() -> ReplaceView:
    """Receipt mode: `process(text).text`."""
    return ReplaceView(Receipt.render)


class CardView:
    """Card mode: `process(text).cards`, each card on a line of its own (SPEC §7.3).

    A card is preceded by a newline unless what was shown so far is empty or
    ends with one (known when the tag is placed), and followed by one unless
    its tag ended the response or the next character is a newline: that is
    *pending* until the character after the tag has come (or the response
    closed), and while it is the view does not let narration flow.
    """

    verbatim = True
    mid_line = True

    def __init__(self) -> None:
        self._shown = 0
        self._line_start = True  # what was shown so far is empty or ends with a newline
        self._pending = False  # a card is shown; the newline after it is not decided yet

    @property
    def needed(self) -> int:
        return self._shown

    def place(self, window: Window, item: Placed) -> str:
        out = self._settle(window, False) + self._narrate(window.slice(self._shown, item.start))
        before = "" if self._line_start else "\n"
        self._shown, self._pending, self._line_start = item.end, True, False
        return out + before + item.receipt.card + self._settle(window, False)

    def advance(self, window: Window, frontier: int, final: bool) -> str:
        out = self._settle(window, final)
        text = window.slice(self._shown, frontier)
        self._shown = frontier
        return out + self._narrate(text)

    def can_flow(self, window: Window, frontier: int) -> str | None:
        return "" if self._shown == frontier and not self._pending else None

    def resume(self, start: int, mid_line: bool, last: str | None = None) -> None:
        self._shown = start
        if last is not None:
            self._line_start = last == "\n"

    def _settle(self, window: Window, final: bool) -> str:
        """The newline after a pending card, once the character after its tag is known."""
        if not self._pending:
            return ""
        if window.end > self._shown:
            after = window.slice(self._shown, self._shown + 1)
        elif final:
            after = "\n"  # the tag ended the response: nothing follows the card
        else:
            return ""
        self._pending = False
        if after in ("\n", "\r"):
            return ""
        self._line_start = True
        return "\n"

    def _narrate(self, text: str) -> str:
        if text:
            self._line_start = text.endswith("\n")
        return text


def cards_view() -> CardView:
    """Card mode: `process(text).cards`."""
    return CardView()


class DisplayView:
    """Display mode: `process(text).display`, which depends on the line around each tag.

    A line holding only tags disappears, and an inline tag takes one adjacent
    space (render.display_text). So the view shows a line's text only up to a
    *restart point*: just after a narration character that is not whitespace.
    Past such a character the line cannot be tag-only, and no later tag can
    cut anything before it, so rendering the line piece by piece from restart
    points gives exactly what rendering the whole line gives. Leading
    whitespace and a trailing space wait for the next narration character or
    the end of the line.

    While the filter flows it shows narration by the same rule, more finely
    (`StreamProcessor._narration`): mid-line only a final space can still go
    with a later tag, so `resume` may restart the view just after whitespace
    that is not a space; to `_render` that reads as the narration it is.
    """

    verbatim = False

    def __init__(self) -> None:
        self._mid_line = False  # `_shown` is a restart point, not a line start
        self._before = "x"  # the character just before `_shown` (render.display_text reads it)
        self._shown = 0  # a restart point or a line start: all before it is shown
        self._blank_from = self._blank_to = -1  # [from, to): only tags and whitespace
        self._tags: list[Placed] = []  # decided tags from `_shown` on

    @property
    def needed(self) -> int:
        return self._shown

    @property
    def mid_line(self) -> bool:
        return self._mid_line

    def place(self, window: Window, item: Placed) -> str:
        self._tags.append(item)
        return ""

    def advance(self, window: Window, frontier: int, final: bool) -> str:
        out: list[str] = []
        while (newline := self._line_break(window, frontier)) >= 0:
            out.append(self._render(window, newline + 1))
        if final:
            if frontier > self._shown:
                out.append(self._render(window, frontier))
            return "".join(out)
        stop = self._restart_point(window, frontier)
        if stop > self._shown:
            out.append(self._render(window, stop))
        return "".join(out)

    def can_flow(self, window: Window, frontier: int) -> str | None:
        # With no tag held, `advance` left only whitespace before `frontier`.
        return None if self._tags else window.slice(self._shown, frontier)

    def resume(self, start: int, mid_line: bool, last: str | None = None) -> None:
        self._shown, self._mid_line = start, mid_line
        if last is not None:
            self._before = last

    def _line_break(self, window: Window, frontier: int) -> int:
        """The next line break before `frontier` that is not inside a tag (a fence, §2.1)."""
        start = self._shown
        while (newline := window.find("\n", start, frontier)) >= 0:
            inside = next((t for t in self._tags if t.start <= newline < t.end), None)
            if inside is None:
                return newline
            start = inside.end
        return -1

    def _restart_point(self, window: Window, frontier: int) -> int:
        """The last position up to `frontier` just after non-whitespace narration.

        What an earlier call found to be only tags and whitespace after `_shown` is not
        walked again: a line of thousands of tags (a model can write one) stays linear."""
        known = self._blank_to if self._blank_from == self._shown else self._shown
        stop, tags = frontier, len(self._tags)
        while stop > known:
            if tags and self._tags[tags - 1].end >= stop:
                stop = self._tags[tags - 1].start
                tags -= 1
            elif window.slice(stop - 1, stop).isspace():
                stop -= 1
            else:
                return stop
        self._blank_from, self._blank_to = self._shown, frontier
        return self._shown

    def _render(self, window: Window, end: int) -> str:
        """Show `response[_shown:end]`, which ends at a restart point or a line's end."""
        start = self._shown
        count = 0
        while count < len(self._tags) and self._tags[count].start < end:
            count += 1
        here, self._tags = self._tags[:count], self._tags[count:]
        text = window.slice(start, end)
        if not here:
            shown = text
        elif not self._mid_line:
            shown = display_text(text, [_shift(item, -start) for item in here])
        else:
            # Mid-line: the line has narration that is not whitespace before `start`
            # and no space there a tag could take; the character before `start` stands
            # in for it: it keeps the line from reading as tag-only, keeps a tag at
            # `start` from cutting before, and says whether it opens (a quote, a bracket).
            before = "x" + self._before  # narration, then the character just before `start`
            shown = display_text(before + text, [_shift(item, 2 - start) for item in here])[2:]
        self._shown = end
        self._mid_line = not text.endswith("\n")
        if text:
            self._before = text[-1]
        return shown


def _shift(item: Placed, by: int) -> Placed:
    return Placed(item.start + by, item.end + by, item.receipt)


VIEWS: dict[str, Callable[[], View]] = {
    "receipts": receipts_view,
    "cards": cards_view,
    "display": DisplayView,
}
"""The views by name; `StreamProcessor` picks one from its `display` / `cards` flags."""
