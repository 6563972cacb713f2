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

A chunk with no `[` that arrives while nothing is held (receipts or cards)
goes straight out as it came, and the window keeps none of it: no later tag
can start before its end (issue 16: most chunks of a reply are narration).

Decided tags go, one at a time and in order, through `gmtags.process.step`
with the response's one seeded `random.Random`, so the result is byte-identical
to `process()` on the whole text for any way of cutting it into chunks, and
plays the snapshot's active layers as `process()` does (`effective_ruleset`).
"""

from __future__ import annotations

import regex

from gmtags.limits import DEFAULT_LIMITS, Limits
from gmtags.process import ProcessResult, new_context, new_seed, result_of, step
from gmtags.ruleset.layers import effective_ruleset
from gmtags.ruleset.model import Ruleset
from gmtags.state.snapshot import Snapshot
from gmtags.stream.views import VIEWS, ReplaceView, View
from gmtags.stream.window import Window
from gmtags.tags.render import Placed
from gmtags.tags.scan import HEAD, Span, span_at

_LINE_BREAK = regex.compile(r"[\r\n]")


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
        self._window = Window()
        self._chunks: list[str] = []
        self._placed: list[Placed] = []
        self._seen = 0  # no tag head starts before this position (after the last span)
        self._head: int | None = None  # the start of a head whose span is not decided yet
        self._looked = 0  # text of the pending tag already looked at for "]" or a line break
        self._result: ProcessResult | None = None

    @property
    def closed(self) -> bool:
        """True once `close` has run."""
        return self._result is not None

    @property
    def held(self) -> int:
        """How many characters received are not shown yet."""
        return self._window.end - self._view.needed

    @property
    def result(self) -> ProcessResult:
        """The same `ProcessResult` that `process()` gives for the whole response."""
        if self._result is None:
            raise RuntimeError("StreamProcessor.result is only there after close()")
        return self._result

    def feed(self, chunk: str) -> str:
        """Take the next piece of the response; return the text that can be shown now."""
        if not isinstance(chunk, str):
            raise TypeError("StreamProcessor.feed() needs str chunks")
        if self._result is not None:
            raise RuntimeError("StreamProcessor.feed() after close()")
        if not chunk:
            return ""
        self._chunks.append(chunk)
        window = self._window
        view = self._view
        if (
            isinstance(view, ReplaceView)
            and "[" not in chunk
            and self._head is None
            and window.end == self._seen == view.needed
        ):
            # Nothing is held and no tag can start in this chunk: it goes out as it came,
            # and the window keeps nothing of it (the next tag starts after it).
            window.base += len(window.text) + len(chunk)
            window.text = ""
            self._seen = window.end
            view.shown_to(window.end)
            return chunk
        window.append(chunk)
        return self._advance(final=False)

    def close(self) -> str:
        """End the response: decide what was held, apply it, return the rest."""
        if self._result is not None:
            raise RuntimeError("StreamProcessor.close() called twice")
        out = self._advance(final=True)
        self._result = result_of("".join(self._chunks), self._placed, self._snapshot, self.seed)
        return out

    def _advance(self, final: bool) -> str:
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
        return "".join(out)

    def _find_head(self, final: bool) -> bool:
        """Look for the next tag head; False when none is (yet) there to decide.

        `_seen` stops at a `[` that may still become a head, so that is held.
        """
        window, length = self._window, self._limits.tag_length
        text, base = window.text, window.base
        while (i := text.find("[", self._seen - base)) >= 0:
            head = HEAD.match(text, i, partial=True)
            if head is None:
                self._seen = base + i + 1
            elif head.partial:
                if final or len(text) - i >= length:  # can no longer become a head that fits
                    self._seen = base + i + 1
                else:
                    self._seen = base + i
                    return False
            elif head.end() - i > length:
                self._seen = base + i + 1
            else:
                self._head = self._seen = base + i
                self._looked = base + head.end()
                return True
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
            or _LINE_BREAK.search(new) is not None
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
