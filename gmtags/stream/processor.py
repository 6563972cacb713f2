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

Most chunks are narration in which no tag can start, so the filter has a
*flowing* mode (issue 16): while nothing is held but what the view allows
(`View.can_flow`) and at most the start of a possible head at the end (`[`,
`[cl`, `[skill_ch`: the *prefix*), a chunk is only scanned for a head. One
with no `[` goes straight to the view (`feed`'s first lines: a few string
tests per chunk); one whose every `[` is narration, or that only extends or
starts a prefix, is split there. The window and every position stay
untouched meanwhile; the first chunk that brings a whole head catches them up
(`_catch_up`) and the window decides from there. A chunk inside a pending tag
with no `]`, no line break and short of the tag length cannot decide it and
is only kept.

Decided tags go, one at a time and in order, through `gmtags.process.step`
with the response's one seeded `random.Random`, so the result is byte-identical
to `process()` on the whole text for any way of cutting it into chunks, and
plays the snapshot's active layers as `process()` does (`effective_ruleset`).
"""

from __future__ import annotations

from gmtags.limits import DEFAULT_LIMITS, Limits
from gmtags.process import ProcessResult, new_context, new_seed, result_of, step
from gmtags.ruleset.layers import effective_ruleset
from gmtags.ruleset.model import Ruleset
from gmtags.state.snapshot import Snapshot
from gmtags.stream.heads import CANDIDATE, open_head
from gmtags.stream.views import VIEWS, View
from gmtags.stream.window import Window
from gmtags.tags.render import Placed
from gmtags.tags.scan import HEAD, Span, span_at


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
        self._received: list[str] = []  # the response so far, but for `_chunks`
        self._chunks: list[str] = []  # the chunks that flowed since the last `_catch_up`
        self._prefix: str | None = ""  # flowing mode: a possible head's start, held
        self._flowing = True  # flowing with no prefix: `feed` hands a chunk with no [ on
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
        if self._prefix is not None:
            self._catch_up()
        return self._window.end - self._view.needed

    @property
    def result(self) -> ProcessResult:
        """The same `ProcessResult` that `process()` gives for the whole response."""
        if self._result is None:
            raise RuntimeError("StreamProcessor.result is only there after close()")
        return self._result

    def feed(self, chunk: str) -> str:
        """Take the next piece of the response; return the text that can be shown now."""
        if self._flowing and "[" not in chunk and type(chunk) is str:
            self._chunks.append(chunk)
            return chunk if self._verbatim else self._view.flow(chunk)
        return self._feed(chunk)

    def close(self) -> str:
        """End the response: decide what was held, apply it, return the rest."""
        if self._result is not None:
            raise RuntimeError("StreamProcessor.close() called twice")
        self._stop_flowing()
        out = self._advance(final=True)
        source = "".join(self._received)
        self._result = result_of(source, self._placed, self._snapshot, self.seed)
        return out

    def _feed(self, chunk: str) -> str:
        """`feed` for a chunk with a `[`, or one that comes while something is held."""
        if not isinstance(chunk, str):
            raise TypeError("StreamProcessor.feed() needs str chunks")
        if self._prefix is not None:  # flowing mode (`close` ends it)
            shown = self._flow(chunk)
            if shown is not None:
                return shown
            self._stop_flowing()
        elif self._result is not None:
            raise RuntimeError("StreamProcessor.feed() after close()")
        elif not chunk:
            return ""
        self._received.append(chunk)
        window = self._window
        window.append(chunk)
        if (
            self._head is not None
            and "]" not in chunk
            and "\n" not in chunk
            and "\r" not in chunk
            and window.end < self._head + self._limits.tag_length
        ):
            return ""  # it cannot decide the pending tag (`_decide`): nothing new to show
        out = self._advance(final=False)
        if self._head is None and self._view.can_flow(window, self._seen):
            self._prefix = window.slice(self._seen, window.end)
            self._flowing = not self._prefix
        return out

    def _flow(self, chunk: str) -> str | None:
        """Flowing mode: show `chunk` unless a whole tag head is in it (then None).

        Every `[` before the first possible head is narration; a possible head
        cut by the chunk's end is held as the prefix.
        """
        text = self._prefix + chunk if self._prefix else chunk
        start = len(text)
        if (candidate := CANDIDATE.search(text)) is not None:  # else every `[` is narration
            if candidate.start() == start - 1:
                open_start = start - 1  # the first candidate, a `[` ending the text, is held
            elif HEAD.search(text) is not None:
                return None  # a whole head: the window decides
            else:
                open_start = open_head(text)
            if open_start >= 0:
                if start - open_start >= self._limits.tag_length:
                    return None  # it cannot become a head that fits: the window says so
                start = open_start
        self._chunks.append(chunk)
        self._prefix = text[start:]
        self._flowing = not self._prefix
        shown = text[:start]
        return shown if self._verbatim else self._view.flow(shown)

    def _catch_up(self) -> None:
        """Flowing mode: bring the window and the view up to every chunk received."""
        assert self._prefix is not None
        if not self._chunks:
            return  # nothing flowed since the window was last brought up
        passed = "".join(self._chunks)  # (one pass over them: `close` needs them joined)
        self._chunks.clear()
        self._received.append(passed)
        window = self._window
        flowed = window.end + len(passed) - len(self._prefix)
        held = self._view.resume(flowed)
        window.text = held + self._prefix
        window.base = flowed - len(held)
        self._seen = flowed

    def _stop_flowing(self) -> None:
        """Leave flowing mode: from now on the window decides."""
        if self._prefix is not None:
            self._catch_up()
            self._prefix = None
            self._flowing = False

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
