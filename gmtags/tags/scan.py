"""Find tag spans in a response (SPEC §2, §2.1), on a whole text or as it streams.

Scanning is kept apart from parsing: this module only says where a tag lies,
what wraps it, and whether it has the shape of a tag (head, attributes,
closing bracket, on one line and within the length limit); the recovery step
and the Lark grammar then read it. A span covers the tag and its wrapping
(§2.1: bold, italics or inline code mirrored around it, a markdown escape, a
code fence that holds nothing but tags), so the wrapping goes with the tag. An
incomplete span covers only what could be read, so a broken tag never
swallows the narration after it; a broken tag whose attributes go on over a
line break, up to a closing bracket, takes that line too (never half hidden).
Reasoning (`<think>` … `</think>`, §2.1) holds no tags.

`Scanner.scan` decides, on a prefix of the response, only what no later text
can change, and says where that stops (the *frontier*): the stream filter
shows text up to it and asks again when more comes; `find_spans` is the same
scan on a whole response. Spellings come from `gmtags.tags.spell`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from gmtags.limits import Limits
from gmtags.tags.spell import (
    BODY,
    CLOSE,
    CONTINUATION,
    CONTINUATION_IN_QUOTE,
    ESCAPE,
    FENCE_OPEN,
    FENCE_START,
    HEAD,
    MAX_WRAP,
    OPEN_BRACKETS,
    OPENERS,
    READABLE,
    REASONING_CLOSE,
    REASONING_OPEN,
    WIDE_HEAD,
    WRAPPERS,
    canonical_name,
    may_become_head,
    wrapping_names,
)

_SHORT_LINE = 64
"""How much of a broken tag's next line is looked at again at every chunk (`_span`)."""
_BEFORE = frozenset(WRAPPERS + ESCAPE)
_LOOKED_BEHIND = frozenset(WRAPPERS + ESCAPE + "\n \t")
"""What before a bracket may make a tag's span start earlier: wrapping, or a fence line."""
_FENCE_CLOSE = re.compile(r" {0,3}(?P<marker>`{3,}|~{3,})[ \t]*+")


@dataclass(frozen=True, slots=True)
class Span:
    """Where one tag lies in the text: `text[start:end]`, its wrapping included.

    `text[tag_start:tag_end]` is the tag from its bracket on (the whole span when
    -1); `wrapping` names what was around it (§2.1, `recovered=`).
    """

    start: int
    end: int
    name: str
    complete: bool
    tag_start: int = -1
    tag_end: int = -1
    wrapping: tuple[str, ...] = ()

    def tag(self, text: str) -> str:
        """The tag itself, without what wrapped it."""
        start = self.start if self.tag_start < 0 else self.tag_start
        end = self.end if self.tag_end < 0 else self.tag_end
        return text[start:end]

    def shifted(self, by: int) -> Span:
        """The same span `by` characters further on."""
        return Span(
            self.start + by,
            self.end + by,
            self.name,
            self.complete,
            self.tag_start + by if self.tag_start >= 0 else -1,
            self.tag_end + by if self.tag_end >= 0 else -1,
            self.wrapping,
        )


class _Undecided(Exception):
    """Internal: the text so far cannot decide this; wait for more."""


class Scanner:
    """Decide a response's tag spans from its start, as far as the text so far allows.

    State between calls: where deciding got to (`pos`, absolute) and whether
    that is inside reasoning. `wake` says what can change an open decision:
    None (nothing is open), "any" (the next character), or "line" (a closing
    bracket, a line break, or the text reaching `wake_at`).
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.pos = 0
        self.reasoning: str | None = None
        self.wake: str | None = None
        self.wake_at = 0
        self._line_start = True  # `pos` starts a line (the text before it may be gone)
        # What is known of the text last scanned (kept while it is the same text): whether
        # it holds a full-width bracket, and the next `[` head found in it (None: none after
        # where it was looked for). Without it, each tag would search to the text's end.
        self._text: str | None = None
        self._wide = False
        self._next: re.Match[str] | None = None
        self._looked = -1

    def skip(self, pos: int, last: str) -> None:
        """Narration up to absolute `pos` was decided elsewhere (the stream's flowing mode);
        `last` is its last character."""
        self.pos, self._line_start = pos, last == "\n"

    def scan(
        self, text: str, base: int, final: bool, most: int | None = None
    ) -> tuple[list[Span], int]:
        """Spans decided in `text` (the response from absolute `base`) from `pos` on, and
        the frontier: everything before it is decided. `final`: the response has ended.
        `most`: stop once that many spans are decided (`find_spans` goes one at a time)."""
        spans: list[Span] = []
        pos, n = self.pos - base, len(text)
        self.wake = None
        if self._text is not text:
            self._text, self._wide, self._looked = text, "［" in text, -1
        wide = self._wide
        while most is None or len(spans) < most:
            if self.reasoning is not None:
                close = REASONING_CLOSE[self.reasoning].search(text, pos)
                if close is None:
                    pos = n if final else _partial_close(text, pos, self.reasoning)
                    break
                pos, self.reasoning = close.end(), None
                continue
            head = self._next_head(text, pos)
            if wide:
                other = WIDE_HEAD.search(text, pos, head.start() if head else n)
                if other is not None:
                    head = other
            if head is None and final:
                pos = n  # no tag is left: whether reasoning opens does not matter (issue 28)
                break
            opener = REASONING_OPEN.search(text, pos, head.start() if head else n)
            if opener is not None:
                pos, self.reasoning = opener.end(), opener[1].lower()
                continue
            if head is None:
                pos = n if final else self._tail(text, pos)
                break
            if head.end() - head.start() > self.limits.tag_length:
                pos = head.start() + 1  # a head longer than a tag is narration (§2)
                continue
            try:
                decided = self._decide(text, pos, head, final)
            except _Undecided:
                pos = self._held_from(text, pos, head.start())
                break
            spans.extend(decided)
            pos = decided[-1].end
        self.pos = base + pos
        self._line_start = self._at_line(text, pos)
        if self.wake is not None:
            # Also ask again once the text held reaches a tag's length (`_held_from` caps it).
            self.wake_at = base + min(self.wake_at, pos + self.limits.tag_length)
        return [span.shifted(base) for span in spans] if base else spans, self.pos

    def _next_head(self, text: str, pos: int) -> re.Match[str] | None:
        """The first `[` head at or after `pos`, searched again only when `pos` has passed
        the one found last (or the text changed)."""
        found = self._next
        if self._looked < 0 or self._looked > pos or (found is not None and found.start() < pos):
            found = self._next = HEAD.search(text, pos)
            self._looked = pos
        return found

    # -- one head -------------------------------------------------------------

    def _decide(self, text: str, pos: int, head: re.Match[str], final: bool) -> list[Span]:
        """The span(s) a head begins: a code fence of tags, else the tag alone."""
        anchor = head.start()
        if anchor <= pos or text[anchor - 1] not in _LOOKED_BEHIND:
            return [self._span(text, pos, head, final)]  # most tags: nothing before to take
        start = _wrap_start(text, pos, anchor)[0]
        fence = self._fence_before(text, pos, start) if start > pos else None
        if fence is not None:
            group = self._group(text, fence, final)
            if group:
                return group
        return [self._span(text, pos, head, final)]

    def _span(self, text: str, pos: int, head: re.Match[str], final: bool) -> Span:
        """The span of the tag whose head is `head`; nothing before `pos` is taken."""
        anchor = head.start()
        n = len(text)
        horizon = anchor + self.limits.tag_length
        limit = min(n, horizon)
        name = canonical_name(head["name"])
        run_start, escaped = _wrap_start(text, pos, anchor)
        body = BODY.match(text, head.end(), limit)
        if body is not None:
            end = body.end()
            if run_start == anchor and text[end - 2] != ESCAPE:
                return Span(anchor, end, name, True, anchor, end)
            return self._wrapped(text, run_start, anchor, end, escaped, name, True, final)
        # Incomplete: decided once its line has ended, the length is reached, or the reply.
        line_end = _line_break(text, head.end(), limit)
        if not final and line_end < 0 and limit < horizon:
            self._wait("line", horizon)
        readable = READABLE.match(text, head.end(), limit)
        readable_end = head.end() if readable is None else readable.end()
        close = CLOSE.match(text, readable_end, limit)
        if close is not None:
            return self._wrapped(text, run_start, anchor, close.end(), escaped, name, False, final)
        end = readable_end
        if line_end >= 0 and _no_bracket(text, readable_end, line_end):
            # §2.1, never half hidden: a tag broken over a line break, closed on the next line.
            quotes = sum(text.count(q, readable_end, line_end) for q in '"\u201c\u201d')
            rest = CONTINUATION_IN_QUOTE if quotes % 2 else CONTINUATION
            more = rest.match(text, line_end, limit, partial=True)
            if more is not None:
                if not more.partial:
                    end = more.end()
                elif not final and limit < horizon:
                    # Asked again at each chunk while the next line is short; past that, at
                    # its bracket or line break (linear however long the line runs).
                    self._wait("any" if n - line_end < _SHORT_LINE else "line", horizon)
        escaped = escaped and end - (anchor - 1) <= self.limits.tag_length
        start = anchor - 1 if escaped else anchor
        return Span(start, end, name, False, anchor, end, ("escaped",) if escaped else ())

    def _wrapped(
        self,
        text: str,
        run_start: int,
        anchor: int,
        end: int,
        escaped: bool,
        name: str,
        complete: bool,
        final: bool,
    ) -> Span:
        """A tag ending at `end` with the longest wrapping run mirrored after it."""
        length = self.limits.tag_length  # a span, its wrapping too, is at most a tag long
        escaped = escaped and end - (anchor - 1) <= length
        bracket = anchor - 1 if escaped else anchor
        run = text[run_start:bracket] if escaped or run_start < anchor else ""
        extra = ("escaped",) if escaped or text[end - 2 : end - 1] == ESCAPE else ()
        for size in range(len(run), 0, -1):
            if end + size - (bracket - size) > length:
                continue
            mirror = run[len(run) - size :][::-1]
            got = text[end : end + size]
            if got == mirror:
                wrapping = (*wrapping_names(mirror), *extra)
                return Span(bracket - size, end + size, name, complete, anchor, end, wrapping)
            if len(got) < size and mirror.startswith(got) and not final:
                self._wait("any", 0)
        return Span(bracket, end, name, complete, anchor, end, extra)

    def _wait(self, wake: str, wake_at: int) -> None:
        self.wake, self.wake_at = wake, wake_at
        raise _Undecided

    # -- a code fence that holds only tags --------------------------------------

    def _group(self, text: str, fence: int, final: bool) -> list[Span]:
        """§2.1: a fence whose lines are tags (blank lines allowed) goes with its tags,
        the opening line with the first and the closing line with the last; a fence the
        reply never closes, with the first only. An empty list: the fence holds something
        else, or does not end within the tag length."""
        n = len(text)
        horizon = fence + self.limits.tag_length
        out_of_text = final or n >= horizon
        spans: list[Span] = []
        line = text.index("\n", fence) + 1
        while True:
            if line >= n or (text.find("\n", line) < 0 and not out_of_text):
                return self._short(spans, fence, n, final, horizon)  # a line is read once ended
            closing = _FENCE_CLOSE.match(text, line)
            if spans and closing is not None:
                end = closing.end()
                if end >= n and not final:
                    return self._short(spans, fence, n, final, horizon)
                if end > horizon or (end < n and text[end] not in "\r\n"):
                    return []
                return _fenced(spans, fence, end)
            pos = line
            while True:
                at = _skip_blanks(text, pos)
                if at >= n:
                    return self._short(spans, fence, n, final, horizon)
                if text[at] in "\r\n":
                    line = at + (2 if text.startswith("\r\n", at) else 1)
                    break
                found = _head_at(text, at)
                if found is None:
                    if _may_become_head(text, at) and not out_of_text:
                        self._wait("line", horizon)
                    return []
                try:
                    span = self._span(text, at, found, final)
                except _Undecided:
                    if not out_of_text:
                        raise
                    self.wake = None  # it ends past the text, so past the fence's length
                    return []
                if span.end > horizon:
                    return []
                spans.append(span)
                pos = span.end

    def _short(
        self, spans: list[Span], fence: int, n: int, final: bool, horizon: int
    ) -> list[Span]:
        """The text ends before the fence closes: a fence of tags the reply never closed
        (it ended within the tag length), not a fence of tags (the length is reached), or
        wait for more."""
        if final and n < horizon and spans:
            return _fenced(spans, fence, spans[-1].end)
        if final or n >= horizon:
            return []
        self._wait("line", horizon)
        return []  # pragma: no cover - `_wait` raises

    # -- what to hold back ------------------------------------------------------

    def _held_from(self, text: str, pos: int, anchor: int) -> int:
        """Where an undecided head's span may start: its wrapping, or a fence before it, as
        far as the span can still be at most a tag long (it ends after the text so far)."""
        n, length = len(text), self.limits.tag_length
        run_start, escaped = _wrap_start(text, pos, anchor)
        fence = self._fence_before(text, pos, run_start)
        if fence is not None and n - fence <= length:
            return fence
        if n - run_start <= length:
            return run_start
        return anchor - 1 if escaped and n - (anchor - 1) <= length else anchor

    def _at_line(self, text: str, pos: int) -> bool:
        """Whether `pos` starts a line (at the text's start: as the scan call began)."""
        return text[pos - 1] == "\n" if pos > 0 else self._line_start

    def _fence_before(self, text: str, pos: int, start: int) -> int | None:
        """The start of a fence line just before the line `start` is on, when only blanks
        come between that line's start and `start` and the fence line is at or after `pos`."""
        if start <= pos or text[start - 1] not in "\n \t":
            return None
        line = text.rfind("\n", pos, start) + 1  # (not before `pos`: linear on one long line)
        if line <= pos or text[line:start].strip(" \t"):
            return None
        previous = text.rfind("\n", pos, line - 1) + 1
        if previous == 0 and not self._at_line(text, pos):
            return None
        previous = max(previous, pos)
        content = text[previous : line - 1].removesuffix("\r")
        return previous if FENCE_OPEN.fullmatch(content) else None

    def _fence_line(self, text: str, pos: int, at: int) -> int | None:
        """The start of the last line when it may be a fence line still being written (its
        text up to the end a fence opener so far) and began at most a tag's length before
        `at`; else None."""
        low = max(pos, at - self.limits.tag_length)
        newline = text.rfind("\n", low, at)
        if newline >= 0:
            line = newline + 1
        elif low == pos and self._at_line(text, pos):
            line = pos
        else:
            return None
        last = text[line:].removesuffix("\r")
        return line if FENCE_START.fullmatch(last) or FENCE_OPEN.fullmatch(last) else None

    def _tail(self, text: str, pos: int) -> int:
        """Where the end of the text may still begin a head, reasoning or a fence (else its end).

        No head is whole after `pos`; the stream holds back what may still become
        one: a bracket and a name being written, a wrapping run, `<thi…`, a
        fence line, each with what would go with it.
        """
        n = len(text)
        opener = n
        lt = text.rfind("<", max(pos, n - len(max(OPENERS, key=len))))
        if lt >= 0 and any(o.startswith(text[lt:].lower()) for o in OPENERS):
            opener = lt
        bracket = max(text.rfind("[", pos), text.rfind("［", pos))
        if (
            bracket >= 0
            and n - bracket < self.limits.tag_length
            and may_become_head(text[bracket + 1 :])
        ):
            held = self._held_from(text, pos, bracket)
            fence = self._fence_line(text, pos, bracket)  # a head in a fence line's info string
            return min(opener, held if fence is None else min(held, fence))
        tail = n
        run = n
        if run > pos and text[run - 1] == ESCAPE:
            run -= 1
        while run > pos and n - run < MAX_WRAP + 1 and text[run - 1] in WRAPPERS:
            run -= 1
        if run < n:
            fence = self._fence_before(text, pos, run)
            tail = run if fence is None else fence
        line = text.rfind("\n", pos, n) + 1 or (pos if self._at_line(text, pos) else n)
        last = text[line:].removesuffix("\r")
        if FENCE_START.fullmatch(last) or FENCE_OPEN.fullmatch(last):
            tail = min(tail, line)  # a fence line still being written
        elif line > pos and not text[line:].strip(" \t"):
            fence = self._fence_before(text, pos, n)
            if fence is not None:
                tail = min(tail, fence)  # a fence line, and the next line not begun
        # What would go with a tag is held only while the span could still fit a tag's length.
        return min(opener, max(tail, n - self.limits.tag_length))


def _fenced(spans: list[Span], fence: int, end: int) -> list[Span]:
    """A fence's tags, the fence going with them: from `fence` to `end` (§2.1)."""
    marked = [replace(span, wrapping=(*span.wrapping, "fence")) for span in spans]
    marked[0] = replace(marked[0], start=fence)
    marked[-1] = replace(marked[-1], end=end)
    return marked


def _partial_close(text: str, pos: int, name: str) -> int:
    """Inside reasoning: where a closing tag may be being written at the end, else the end."""
    closing = f"</{name}>"
    lt = text.rfind("<", max(pos, len(text) - len(closing)))
    if lt >= 0 and closing.startswith(text[lt:].lower()):
        return lt
    return len(text)


def _wrap_start(text: str, pos: int, anchor: int) -> tuple[int, bool]:
    """Where a wrapping run before the bracket at `anchor` starts, and whether `\\[` escapes it."""
    if anchor <= pos or text[anchor - 1] not in _BEFORE:
        return anchor, False
    escaped = anchor > pos and text[anchor - 1] == ESCAPE
    start = anchor - 1 if escaped else anchor
    run = start
    while run > pos and start - run < MAX_WRAP and text[run - 1] in WRAPPERS:
        run -= 1
    return run, escaped


def _line_break(text: str, start: int, end: int) -> int:
    newline = text.find("\n", start, end)
    ret = text.find("\r", start, end if newline < 0 else newline)
    return ret if ret >= 0 else newline


def _no_bracket(text: str, start: int, end: int) -> bool:
    return not any(text.find(b, start, end) >= 0 for b in "[［")


def _skip_blanks(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    return pos


def _head_at(text: str, at: int) -> re.Match[str] | None:
    """A head whose wrapping starts at `at` (its bracket a few characters on)."""
    bracket = at
    while bracket < len(text) and bracket - at <= MAX_WRAP and text[bracket] in WRAPPERS:
        bracket += 1
    if text.startswith(ESCAPE, bracket):
        bracket += 1
    head = HEAD.match(text, bracket) or WIDE_HEAD.match(text, bracket)
    if head is None or _wrap_start(text, at, bracket)[0] != at:
        return None
    return head


def _may_become_head(text: str, at: int) -> bool:
    """More text could still make a head whose wrapping starts at `at`."""
    bracket = at
    while bracket < len(text) and text[bracket] in WRAPPERS + ESCAPE:
        bracket += 1
    if bracket >= len(text):
        return True
    return text[bracket] in OPEN_BRACKETS and may_become_head(text[bracket + 1 :])


def without_reasoning(text: str) -> str:
    """`text` with each reasoning block taken out, opener to closer (to the end when the
    model never closed it), SPEC §2.1: what a client that parses reasoning shows."""
    out: list[str] = []
    pos = 0
    while (opener := REASONING_OPEN.search(text, pos)) is not None:
        out.append(text[pos : opener.start()])
        close = REASONING_CLOSE[opener[1].lower()].search(text, opener.end())
        pos = len(text) if close is None else close.end()
    out.append(text[pos:])
    return "".join(out) if pos else text


def find_spans(text: str, limits: Limits) -> Iterator[Span]:
    """Yield every tag span of a whole response in order; spans never overlap.

    One span (or fence of spans) is decided per step, so a caller can pause between
    them on a very long reply (the proxy does)."""
    scanner = Scanner(limits)
    while spans := scanner.scan(text, 0, True, most=1)[0]:
        yield from spans
