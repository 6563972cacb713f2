"""`StreamProcessor`: the stream filter between the model API and the chat UI (SPEC §1, §2).

Chunks go in as the model writes them; what can already be shown comes out.
Narration flows through at once. What is decided is decided by the one
scanner `process()` uses (`gmtags.tags.scan.Scanner`), on the text received so
far: it decides only what no later text can change (a tag when its closing
bracket and whatever mirrors its wrapping have come; a broken tag once its
line, or the line that closes it, has ended; a fence of tags once it closes)
and holds back from what may still become a tag, its wrapping, a fence line
or a reasoning opener (SPEC §2.1). Reasoning flows through untouched.

Every chunk is kept once: in `_chunks` until the window is brought up to
it, then in `_kept` (a run of chunks joined into one piece); the response is
joined from those at `close`. Most chunks are narration in which nothing can
start, so the filter has a *flowing* mode (issue 16): while nothing is held
but what `View.can_flow` allows, a chunk with none of the characters anything
held could start with (`_STARTS`) is shown as it is (receipt and card mode)
or short of the whitespace a tag may still take (display), and the window,
the view and the scanner are left alone; the first chunk that has one of those
characters catches them up (`_stop_flowing`). While the scanner waits on a
tag for a closing bracket or a line break, a chunk with neither is only kept.

Decided tags go, one at a time and in order, through `gmtags.process.step`
with the response's one seeded `random.Random`, so the result is byte-identical
to `process()` on the whole text for any way of cutting it into chunks, and
plays the snapshot's active layers as `process()` does (`effective_ruleset`).
"""

from __future__ import annotations

from gmtags.limits import DEFAULT_LIMITS, Limits
from gmtags.process import ProcessResult, new_context, new_seed, result_of, step
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.played import effective_ruleset
from gmtags.state.snapshot import Snapshot
from gmtags.stream.views import VIEWS, View
from gmtags.stream.window import Window
from gmtags.tags.receipt import Receipt
from gmtags.tags.render import Placed
from gmtags.tags.scan import Scanner, Span
from gmtags.tags.spell import HEAD_START

_MAY_WAIT = frozenset(c for c in map(chr, range(0x3001)) if c.isspace())
"""The characters a chunk may end in for display to hold something back (whitespace: every
character `str.isspace` takes is at or below U+3000, which a test holds; scanning all of
Unicode here would add 90 ms to every start of gmtags)."""
_WAKE = ("]", "］", "\n", "\r")
"""What can decide a tag waiting for its line (`Scanner.wake == "line"`)."""


_QUIET = frozenset("[［<`\\~")
"""A chunk with none of these (and not ending in `_WRAPPING_ENDS`) starts nothing."""
_WRAPPING_ENDS = ("*", "_")


def _starts_something(chunk: str) -> bool:
    """True when `chunk` holds a bracket a head may begin with (`HEAD_START`), a character
    a tag's wrapping, a fence or reasoning could start with (`gmtags.tags.spell`), or ends
    in a wrapping character (`*`, `_`: `feed` asks that). A bracket no name's initial
    follows is narration."""
    return (
        (("[" in chunk or "［" in chunk) and HEAD_START.search(chunk) is not None)
        or "<" in chunk
        or "`" in chunk
        or "\\" in chunk
        or "~" in chunk
    )


class StreamProcessor:
    """Process one response as it streams in; `feed` chunks, then `close` once.

    `display=True` shows the narration with tags hidden (`process(...).display`),
    `cards=True` a card per tag (`.cards`); by default tags become receipts
    (`.text`). After `close`, `result` is what `process()` returns.
    """

    def __init__(
        self,
        ruleset: Ruleset,
        snapshot: Snapshot | None = None,
        seed: int | None = None,
        *,
        display: bool = False,
        cards: bool = False,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        if display and cards:
            raise ValueError("display and cards are two views: choose one")
        self.seed = new_seed() if seed is None else seed
        self._snapshot = Snapshot() if snapshot is None else snapshot
        played = effective_ruleset(ruleset, self._snapshot.ruleset_layers)
        self._context = new_context(played, self.seed, limits)
        self._limits = limits
        self._scanner = Scanner(limits)
        self._view: View = VIEWS["display" if display else "cards" if cards else "receipts"]()
        self._verbatim = self._view.verbatim
        self._window = Window()
        self._kept: list[str] = []  # the response up to the window's end, in pieces
        self._chunks: list[str] = []  # the chunks received after it
        self._waiting = 0  # characters in `_chunks` while a tag waits (`_feed`)
        # Flowing mode: the window, view and scanner stand at the last chunk before it;
        # display holds `_held`, whitespace a tag may still take (all of it at a line's
        # start, a final space at most once the line has narration).
        self._flowing = True
        self._held = ""
        self._mid_line = self._view.mid_line
        self._placed: list[Placed] = []
        self._result: ProcessResult | None = None

    @property
    def closed(self) -> bool:
        """True once `close` has run."""
        return self._result is not None

    @property
    def held(self) -> int:
        """How many characters received are not shown yet."""
        if self._flowing:
            return len(self._held)
        received = self._window.end + sum(map(len, self._chunks))
        return received - self._view.needed

    @property
    def snapshot(self) -> Snapshot:
        """The snapshot after the tags decided so far: every tag whose receipt (card, or
        hidden place) `feed` or `close` has returned, and no other. A caller that stops
        before `close` (the player hung up) keeps the game as far as the text it showed."""
        return self._snapshot

    @property
    def receipts(self) -> list[Receipt]:
        """The receipts of the tags decided so far (those `snapshot` holds), in order."""
        return [placed.receipt for placed in self._placed]

    @property
    def result(self) -> ProcessResult:
        """The same `ProcessResult` that `process()` gives for the whole response."""
        if self._result is None:
            raise RuntimeError("StreamProcessor.result is only there after close()")
        return self._result

    def feed(self, chunk: str) -> str:
        """Take the next piece of the response; return the text that can be shown now."""
        if (
            self._flowing
            and type(chunk) is str
            and (_QUIET.isdisjoint(chunk) or not _starts_something(chunk))
            and not chunk.endswith(_WRAPPING_ENDS)
        ):
            self._chunks.append(chunk)
            if self._verbatim:
                return chunk
            return self._narration(chunk)
        return self._feed(chunk)

    def close(self) -> str:
        """End the response: decide what was held, apply it, return the rest."""
        if self._result is not None:
            raise RuntimeError("StreamProcessor.close() called twice")
        self._stop_flowing()
        out = self._advance(final=True)
        source = "".join(self._kept)
        self._result = result_of(source, self._placed, self._snapshot, self.seed)
        return out

    def _feed(self, chunk: str) -> str:
        """`feed` for a chunk that may start something, or comes while something is held."""
        if not isinstance(chunk, str):
            raise TypeError("StreamProcessor.feed() needs str chunks")
        if self._result is not None:
            raise RuntimeError("StreamProcessor.feed() after close()")
        scanner = self._scanner
        if self._flowing:
            self._stop_flowing()
        elif scanner.wake == "line" and not any(c in chunk for c in _WAKE):
            # A tag waits for its bracket or its line's end: only the tag length can decide.
            self._waiting += len(chunk)
            if self._window.end + self._waiting < scanner.wake_at:
                self._chunks.append(chunk)
                return ""
        self._chunks.append(chunk)
        out = self._advance(final=False)
        if scanner.pos == self._window.end and scanner.wake is None:
            out += self._start_flowing()
        return out

    def _narration(self, narration: str) -> str:
        """Display, flowing: what to show of `narration` (no tag in it) and what was held.

        A line that has ended without a tag shows whole. At a line's start the
        whitespace waits (the line may still hold only tags). Once the line has
        narration that is not whitespace, only a final space waits: a later
        inline tag can take just the space before it (render.display_text).
        """
        if not narration:
            return ""
        text = self._held + narration
        last = text[-1]
        if self._mid_line and last not in _MAY_WAIT:
            self._held = ""
            return text
        line = text.rfind("\n") + 1
        if line or not self._mid_line:
            rest = text[line:]
            self._mid_line = bool(rest) and not rest.isspace()
        if not self._mid_line:
            shown, self._held = text[:line], text[line:]
        elif last == " ":
            shown, self._held = text[:-1], " "
        else:
            shown, self._held = text, ""
        return shown

    def _start_flowing(self) -> str:
        """Nothing is held by the scanner: flow from here if the view allows (`View.can_flow`).

        Display shows at once what the view held that flowing would not hold (mid-line,
        whitespace before the last character), by `_narration`'s rule."""
        window = self._window
        held = self._view.can_flow(window, window.end)
        if held is None:
            return ""
        self._flowing = True
        self._held, self._mid_line = "", self._view.mid_line
        return self._narration(held)

    def _stop_flowing(self) -> None:
        """Leave flowing mode: bring the window, the view and the scanner up to every chunk."""
        if not self._flowing:
            return
        self._flowing = False
        window = self._window
        passed = "".join(self._chunks)
        self._chunks.clear()
        if passed:
            self._kept.append(passed)
        end = window.end + len(passed)
        shown = end - len(self._held)
        # The last character shown (the card view starts a card's line by it).
        last = None
        if shown - 1 >= window.end:
            last = passed[shown - 1 - window.end]
        elif shown - 1 >= window.base:
            last = window.text[shown - 1 - window.base]
        window.text = self._held
        window.base = shown
        self._view.resume(shown, self._mid_line, last)
        if passed:
            self._scanner.skip(end, passed[-1])
        self._held = ""

    def _sync(self) -> None:
        """Bring the window up to every chunk received (not in flowing mode)."""
        if self._chunks:
            text = "".join(self._chunks)
            self._chunks.clear()
            self._kept.append(text)
            self._window.append(text)
        self._waiting = 0

    def _advance(self, final: bool) -> str:
        self._sync()
        window = self._window
        spans, frontier = self._scanner.scan(window.text, window.base, final)
        out = [self._view.place(window, self._apply(span)) for span in spans]
        out.append(self._view.advance(window, frontier, final))
        window.trim(min(frontier, self._view.needed))
        return "".join(out)

    def _apply(self, span: Span) -> Placed:
        """One step of `process`, on the window's text."""
        base = self._window.base
        count = len(self._placed) + 1
        self._snapshot, receipt = step(
            self._window.text, span.shifted(-base), count, self._snapshot, self._context
        )
        placed = Placed(span.start, span.end, receipt)
        self._placed.append(placed)
        return placed
