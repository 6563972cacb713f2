"""`StreamProcessor`: the stream filter between the model API and the chat UI (SPEC §1, §2).

Chunks go in as the model writes them; what can already be shown comes out.
Narration flows through at once. The filter holds back only from a `[` that
may still become a tag head (a prefix of `[skill_check`, `[sheet` or `[clock`
in any ASCII case, then spaces and `:`), and a tag's span is decided exactly
as `find_spans` decides it on the whole response:

- a span that closes with `]` as a well-formed tag is decided when that `]`
  arrives (what follows cannot change it);
- any other span is decided once its line has ended, the tag length is
  reached, or the response is closed: no scan pattern reads across a line
  break or past the tag length, so the prefix then gives the whole answer.

Every chunk is kept once: in `_chunks` until the window is brought up to
it, then in `_kept` (a run of chunks joined into one piece); the response is
joined from those at `close`. Most chunks are narration in which no tag can start, so the filter
has a *flowing* mode (issue 16): while no tag is pending and the view holds
nothing back but what `View.can_flow` allows, a chunk is only scanned for a
head, and the narration in it is shown in the same pass (`feed`, `_flow`,
`_narration`): as it came in receipt and card mode; in display mode short of
the whitespace a tag may still take. A chunk with no `[` while nothing is held
costs `feed`'s first lines. The window and every position stay untouched
meanwhile; the first chunk that brings a whole head catches them up
(`_stop_flowing`) and the window decides from there. A chunk inside a pending
tag with no `]`, no line break and short of the tag length cannot decide it
and is only kept.

Decided tags go, one at a time and in order, through `gmtags.process.step`
with the response's one seeded `random.Random`, so the result is byte-identical
to `process()` on the whole text for any way of cutting it into chunks, and
plays the snapshot's active layers as `process()` does (`effective_ruleset`).
"""

from __future__ import annotations

import re

from gmtags.limits import DEFAULT_LIMITS, Limits
from gmtags.process import ProcessResult, new_context, new_seed, result_of, step
from gmtags.ruleset.layers import effective_ruleset
from gmtags.ruleset.model import Ruleset
from gmtags.state.snapshot import Snapshot
from gmtags.stream.heads import CANDIDATE, open_head
from gmtags.stream.views import VIEWS, View
from gmtags.stream.window import Window
from gmtags.tags.receipt import Receipt
from gmtags.tags.render import Placed
from gmtags.tags.scan import HEAD, Span, span_at

_MAY_WAIT = frozenset(c for c in map(chr, range(0x3001)) if c.isspace())
"""The characters a chunk may end in for display to hold something back (whitespace: every
character `str.isspace` takes is at or below U+3000, which a test holds; scanning all of
Unicode here would add 90 ms to every start of gmtags)."""


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
        self._view: View = VIEWS["display" if display else "cards" if cards else "receipts"]()
        self._verbatim = self._view.verbatim
        self._window = Window()
        self._kept: list[str] = []  # the response up to the window's end, in pieces
        self._chunks: list[str] = []  # the chunks received after it
        # Flowing mode: `_prefix` is a possible head's start, held (None: not flowing);
        # display holds `_held` before it, whitespace a tag may still take (all of it
        # at a line's start, a final space at most once the line has narration).
        self._prefix: str | None = ""
        self._held = ""
        self._mid_line = self._view.mid_line
        self._clear = self._mid_line  # flowing, no prefix, mid-line: `feed`'s first lines
        self._placed: list[Placed] = []
        self._seen = 0  # no tag head starts before this position (after the last span)
        self._head: int | None = None  # the start of a head whose span is not decided yet
        self._looked = 0  # text of the pending tag already looked at for "]" or a line break
        self._room = 0  # the pending tag is decided by the tag length once this many more come
        self._result: ProcessResult | None = None

    @property
    def closed(self) -> bool:
        """True once `close` has run."""
        return self._result is not None

    @property
    def held(self) -> int:
        """How many characters received are not shown yet."""
        if self._prefix is not None:
            return len(self._held) + len(self._prefix)
        self._sync()
        return self._window.end - self._view.needed

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
        if self._clear and type(chunk) is str:
            if "[" in chunk and (candidate := CANDIDATE.search(chunk)) is not None:
                return self._flow(chunk, chunk, candidate)  # a `[` that may begin a head
            self._chunks.append(chunk)  # every `[` in it, if any, is narration (`[OOC`, `[1]`)
            if self._verbatim:
                return chunk
            # Display, mid-line (`_narration`): a chunk that ends in narration shows whole.
            try:
                last = chunk[-1]
            except IndexError:
                return chunk  # nothing new
            if last not in _MAY_WAIT:
                if self._held:
                    chunk, self._held = self._held + chunk, ""
                return chunk
            if last == " " and "\n" not in chunk:
                text, self._held = self._held + chunk, " "
                return text[:-1]
            if last == "\n":  # the line ended with no tag: all of it shows
                text, self._held, self._mid_line = self._held + chunk, "", False
                self._clear = False
                return text
            return self._narration(chunk)
        if self._prefix == "" and type(chunk) is str and "[" not in chunk:
            self._chunks.append(chunk)  # display at a line's start
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
        """`feed` for a chunk with a `[`, or one that comes while something is held."""
        if not isinstance(chunk, str):
            raise TypeError("StreamProcessor.feed() needs str chunks")
        if self._result is not None:
            raise RuntimeError("StreamProcessor.feed() after close()")
        if self._prefix is not None:
            text = self._prefix + chunk if self._prefix else chunk
            return self._flow(chunk, text, CANDIDATE.search(text))
        if self._head is not None and not (
            "]" in chunk or "\n" in chunk or "\r" in chunk or len(chunk) >= self._room
        ):
            self._chunks.append(chunk)  # it cannot decide the pending tag (`_decide`)
            self._room -= len(chunk)
            return ""
        return self._take(chunk)

    def _take(self, chunk: str) -> str:
        """The window's way: keep `chunk`, decide what it lets decide, flow again if it may."""
        self._chunks.append(chunk)
        out = self._advance(final=False)
        if self._head is None:
            self._start_flowing()
        return out

    def _flow(self, chunk: str, text: str, candidate: re.Match[str] | None) -> str:
        """Flowing mode: show the narration of `chunk` (`text` is the prefix and it).

        `candidate` is the first `[` in `text` that may begin a head; every `[`
        before the first possible head is narration; a possible head cut by the
        chunk's end is held as the prefix. A whole head, or one that cannot fit
        the tag length, ends flowing: the window decides from there.
        """
        start = len(text)
        if candidate is not None:  # else every `[` is narration
            if candidate.start() == start - 1:
                open_start = start - 1  # the first candidate, a `[` ending the text, is held
            elif ":" in text and HEAD.search(text, candidate.start()) is not None:
                return self._leave_flowing(chunk)  # a whole head
            else:
                open_start = open_head(text)
            if open_start >= 0:
                if start - open_start >= self._limits.tag_length:
                    return self._leave_flowing(chunk)  # it cannot become a head that fits
                start = open_start
        self._chunks.append(chunk)
        self._prefix = text[start:]
        if self._verbatim:
            self._clear = not self._prefix
            return text[:start]
        return self._narration(text[:start])

    def _leave_flowing(self, chunk: str) -> str:
        """Flowing mode ends at `chunk`: the window decides from here."""
        self._stop_flowing()
        return self._take(chunk)

    def _narration(self, narration: str) -> str:
        """Display, flowing: what to show of `narration` (no tag in it) and what was held.

        A line that has ended without a tag shows whole. At a line's start the
        whitespace waits (the line may still hold only tags). Once the line has
        narration that is not whitespace, only a final space waits: a later
        inline tag can take just the space before it (render.display_text).
        """
        text = self._held + narration
        line = text.rfind("\n") + 1
        if line or not self._mid_line:
            rest = text[line:]
            self._mid_line = bool(rest) and not rest.isspace()
        if not self._mid_line:
            shown, self._held = text[:line], text[line:]
        elif text[-1:] == " ":
            shown, self._held = text[:-1], " "
        else:
            shown, self._held = text, ""
        self._clear = self._mid_line and not self._prefix
        return shown

    def _start_flowing(self) -> None:
        """No tag pending: flow from here if the view allows (`View.can_flow`)."""
        window = self._window
        held = self._view.can_flow(window, self._seen)
        if held is not None:
            self._prefix = window.slice(self._seen, window.end)
            self._held, self._mid_line = held, self._view.mid_line
            self._clear = not self._prefix and self._mid_line

    def _stop_flowing(self) -> None:
        """Leave flowing mode: bring the window and the view up to every chunk received."""
        prefix = self._prefix
        if prefix is None:
            return
        window = self._window
        passed = "".join(self._chunks)  # (the flowed text is not needed, but its length is)
        self._chunks.clear()
        self._kept.append(passed)
        # The last character shown while flowing (the card view starts a card's line by it).
        started = window.slice(self._seen, window.end)  # the prefix flowing started from
        shown = len(started) + len(passed) - len(self._held) - len(prefix)
        last = None
        if shown > 0:
            last = started[shown - 1] if shown <= len(started) else passed[shown - 1 - len(started)]
        end = window.end + len(passed)
        window.text = self._held + prefix
        window.base = end - len(window.text)
        self._view.resume(window.base, self._mid_line, last)
        self._seen = end - len(prefix)
        self._prefix, self._held, self._clear = None, "", False

    def _sync(self) -> None:
        """Bring the window up to every chunk received (not in flowing mode)."""
        if self._chunks:
            text = "".join(self._chunks)
            self._chunks.clear()
            self._kept.append(text)
            self._window.append(text)

    def _advance(self, final: bool) -> str:
        self._sync()
        out: list[str] = []
        window = self._window
        while True:
            if self._head is None and not self._find_head(final):
                break
            span = self._decide(final)
            if span is None:
                break
            out.append(self._view.place(window, self._apply(span)))
            self._head = None
            self._seen = span.end
        frontier = self._seen if self._head is None else self._head
        out.append(self._view.advance(window, frontier, final))
        window.trim(min(frontier, self._view.needed))
        if self._head is not None:
            self._room = self._head + self._limits.tag_length - window.end
        return "".join(out)

    def _find_head(self, final: bool) -> bool:
        """Look for the next tag head; False when none is (yet) there to decide.

        `_seen` stops at a `[` that may still become a head, so that is held.
        """
        window, length = self._window, self._limits.tag_length
        text, base = window.text, window.base
        while (i := text.find("[", self._seen - base)) >= 0:
            head = HEAD.match(text, i)
            if head is not None and head.end() - i <= length:
                self._head = self._seen = base + i
                self._looked = base + head.end()
                return True
            if (
                head is None
                and not final
                and len(text) - i < length  # else it cannot become a head that fits
                and open_head(text) == i
            ):
                self._seen = base + i
                return False
            self._seen = base + i + 1
        self._seen = window.end
        return False

    def _decide(self, final: bool) -> Span | None:
        """The pending tag's span (absolute) once no later text can change it, else None."""
        assert self._head is not None
        window = self._window
        start = self._head - window.base
        new = window.slice(self._looked, window.end)
        self._looked = window.end
        settled = (
            final
            or window.end >= self._head + self._limits.tag_length
            or "\n" in new
            or "\r" in new
        )
        if not settled and "]" not in new:
            return None
        head = HEAD.match(window.text, start)
        assert head is not None
        span = span_at(window.text, head, self._limits)
        if not (settled or span.complete):
            return None
        return Span(span.start + window.base, span.end + window.base, span.name, span.complete)

    def _apply(self, span: Span) -> Placed:
        """One step of `process`, on the window's text."""
        base = self._window.base
        local = Span(span.start - base, span.end - base, span.name, span.complete)
        count = len(self._placed) + 1
        self._snapshot, receipt = step(
            self._window.text, local, count, self._snapshot, self._context
        )
        placed = Placed(span.start, span.end, receipt)
        self._placed.append(placed)
        return placed
