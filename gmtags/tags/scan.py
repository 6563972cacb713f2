"""Find candidate tag spans in a response with regular expressions (SPEC §2).

Scanning is kept apart from parsing: this module only says where a tag starts
and where it ends. A span is `complete` when it has the shape of a tag (head,
attributes, closing bracket, all on one line and within the length limit);
the Lark grammar then decides whether it really parses. An incomplete span
covers only what could be read, so a broken tag never swallows the narration
after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from gmtags.limits import Limits

TAG_NAMES = ("skill_check", "sheet", "clock")
FLAGS = ("clear",)
"""The bare flags a broken tag may still be read with (a well-formed tag may hold any)."""


def _ascii_caseless(word: str) -> str:
    # ASCII-only case folding: `(?i)` would also let the long s (ſ) match "s".
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in word)


_NAME = "|".join(_ascii_caseless(name) for name in TAG_NAMES)
_QUOTED = r"[\"\u201c\u201d][^\"\u201c\u201d\r\n]*+[\"\u201c\u201d]"
_KEY = r"[A-Za-z_][A-Za-z0-9_]*+"

# Issue 16: the standard library's engine, three times faster a call than `regex` on these
# patterns (Python 3.11 has the possessive quantifiers); both read them the same way
# (tests/tags/test_scan.py). The stream filter finds heads with `HEAD` too.
HEAD = re.compile(rf"\[(?P<name>{_NAME})[ \t]*+:")
# The shape of a whole tag after its head: anything but brackets, quotes and
# line breaks, or a quoted value (which may hold brackets), then "]".
_BODY = re.compile(rf"(?:[^\]\[\r\n\"\u201c\u201d]++|{_QUOTED})*+\]")
# What can be read of a broken tag: key="value" pairs (no brackets inside, so a
# runaway quote cannot reach into the next tag) and the known bare flags.
_SAFE_QUOTED = r"[\"\u201c\u201d][^\"\u201c\u201d\r\n\[\]]*+[\"\u201c\u201d]"
_FLAG = "|".join(FLAGS)
_READABLE = re.compile(
    rf"(?:[ \t]*+(?:{_KEY}[ \t]*=[ \t]*{_SAFE_QUOTED}|(?:{_FLAG})(?![A-Za-z0-9_=])))*+"
)
# A broken tag still ends at the next "]" on its line, unless a "[" comes first.
_CLOSE = re.compile(r"[^\[\]\r\n]*+\]")


@dataclass(frozen=True, slots=True)
class Span:
    """Where one candidate tag lies in the text: `text[start:end]`."""

    start: int
    end: int
    name: str
    complete: bool


def span_at(text: str, head: re.Match[str], limits: Limits) -> Span:
    """The span of the tag whose head is `head`.

    It reads no further than the tag length and never across a line break, so
    the stream filter can decide it from a prefix of the response.
    """
    start = head.start()
    limit = min(len(text), start + limits.tag_length)
    body = _BODY.match(text, head.end(), limit)
    if body is not None:
        return Span(start, body.end(), head["name"].lower(), complete=True)
    readable = _READABLE.match(text, head.end(), limit)
    readable_end = head.end() if readable is None else readable.end()
    close = _CLOSE.match(text, readable_end, limit)
    end = close.end() if close is not None else readable_end
    return Span(start, end, head["name"].lower(), complete=False)


def find_spans(text: str, limits: Limits) -> Iterator[Span]:
    """Yield every candidate tag span in order; spans never overlap.

    A head longer than the tag length (`[clock` and thousands of spaces) is
    narration: SPEC §2 bounds a tag from `[` to `]`, head included.
    """
    pos = 0
    while True:
        head = HEAD.search(text, pos)
        if head is None:
            return
        if head.end() - head.start() > limits.tag_length:
            pos = head.start() + 1
            continue
        span = span_at(text, head, limits)
        yield span
        pos = span.end
