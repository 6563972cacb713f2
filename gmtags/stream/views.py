"""What the stream filter shows: receipts, cards, or the display narration.

Each view is told every decided tag (in order) and the frontier (everything
before it is decided: narration, or tags already placed), and returns the
text that can be shown now. A view never shows text it might have to take
back, so the concatenated output equals the whole-text rendering of
`gmtags.tags.render`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from gmtags.stream.window import Window
from gmtags.tags.receipt import Receipt
from gmtags.tags.render import Placed, display_text


class View(Protocol):
    """One way of showing the stream."""

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


class ReplaceView:
    """Narration as it comes, each tag replaced by its receipt (or its card) once decided."""

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

    def shown_to(self, position: int) -> None:
        """Everything before `position` went out as it came (the filter's fast path)."""
        self._shown = position


def receipts_view() -> ReplaceView:
    """Receipt mode: `process(text).text`."""
    return ReplaceView(Receipt.render)


def cards_view() -> ReplaceView:
    """Card mode: `process(text).cards`."""
    return ReplaceView(lambda receipt: receipt.card)


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
    """

    def __init__(self) -> None:
        self._line_start = 0
        self._shown = 0  # a restart point or a line start: all before it is shown
        self._tags: list[Placed] = []  # decided tags from `_shown` on

    @property
    def needed(self) -> int:
        return self._shown

    def place(self, window: Window, item: Placed) -> str:
        self._tags.append(item)
        return ""

    def advance(self, window: Window, frontier: int, final: bool) -> str:
        out: list[str] = []
        while (newline := window.find("\n", self._shown, frontier)) >= 0:
            out.append(self._render(window, newline + 1))
        if final:
            if frontier > self._shown:
                out.append(self._render(window, frontier))
            return "".join(out)
        stop = self._restart_point(window, frontier)
        if stop > self._shown:
            out.append(self._render(window, stop))
        return "".join(out)

    def _restart_point(self, window: Window, frontier: int) -> int:
        """The last position up to `frontier` just after non-whitespace narration."""
        stop, tags = frontier, len(self._tags)
        while stop > self._shown:
            if tags and self._tags[tags - 1].end >= stop:
                stop = self._tags[tags - 1].start
                tags -= 1
            elif window.slice(stop - 1, stop).isspace():
                stop -= 1
            else:
                break
        return stop

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
        elif start == self._line_start:
            shown = display_text(text, [_shift(item, -start) for item in here])
        else:
            # Mid-line: the text before `start` ends in narration that is not
            # whitespace; a stand-in for it keeps the line from reading as
            # tag-only and keeps a tag at `start` from cutting before itself.
            shown = display_text("x" + text, [_shift(item, 1 - start) for item in here])[1:]
        self._shown = end
        if text.endswith("\n"):
            self._line_start = end
        return shown


def _shift(item: Placed, by: int) -> Placed:
    return Placed(item.start + by, item.end + by, item.receipt)


VIEWS: dict[str, Callable[[], View]] = {
    "receipts": receipts_view,
    "cards": cards_view,
    "display": DisplayView,
}
"""The views by name; `StreamProcessor` picks one from its `display` / `cards` flags."""
