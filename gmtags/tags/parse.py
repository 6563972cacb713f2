"""Parse one tag span with the Lark grammar (SPEC §2).

Lark lives here and nowhere else. The grammar file is the authority: Lark
builds its parser once, and a tag is read with that grammar's own terminals,
as Lark's lexer finds them (`parsed_by_lark` is the reference the tests hold
the reader to; issue 16: a tenth of the cost). The reading of the last tag
texts seen is kept, and a text that does not parse is a malformed `ParsedTag`
made at this one place, so bad model output is a value, never an exception.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path

import regex
from lark import Lark, Token, Transformer
from lark.exceptions import LarkError

from gmtags.tags.recover import Recovery, recover
from gmtags.tags.scan import Span
from gmtags.tags.spell import FLAGS
from gmtags.text import mend_surrogates

_GRAMMAR_NAME = "gmtags.lark"
_QUOTES = '"\u201c\u201d'
_PAIR = regex.compile(
    r"(?P<key>[A-Za-z_][A-Za-z0-9_]*+)[ \t]*=[ \t]*"
    r"[\"\u201c\u201d](?P<value>[^\"\u201c\u201d\r\n\[\]]*+)[\"\u201c\u201d]"
    rf"|(?<![A-Za-z0-9_])(?P<flag>{'|'.join(FLAGS)})(?![A-Za-z0-9_=])"
)


@dataclass(frozen=True, slots=True)
class Attr:
    """One attribute as written: `key="value"`, or a bare flag when `value` is None."""

    key: str
    value: str | None


@dataclass(frozen=True, slots=True)
class ParsedTag:
    """A tag read from the response, before the engine applies it.

    `attrs` keeps the model's order with engine-written attributes already
    removed (`discarded` names them). `malformed` tags keep what could be read.
    """

    name: str
    attrs: tuple[Attr, ...]
    raw: str
    malformed: bool = False
    discarded: tuple[str, ...] = ()
    recovered: tuple[str, ...] = ()
    """What was repaired to read it (SPEC §2.1, `gmtags.tags.recover`), wrapping included."""
    body: str = ""
    """A malformed tag's attribute text as written, spellings mended (its receipt's `raw=`)."""
    _index: dict[str, Attr] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {a.key.lower(): a for a in self.attrs})

    def has(self, key: str) -> bool:
        """True when the attribute is present, as a pair or as a flag (case-insensitive)."""
        return key.lower() in self._index

    def get(self, key: str) -> str | None:
        """The attribute's value (case-insensitive key); None when absent or a bare flag."""
        attr = self._index.get(key.lower())
        return None if attr is None else attr.value


def _pair(text: str) -> Attr:
    """One `PAIR` token as its attribute: the key before `=`, the value inside its quotes."""
    key, _, quoted = text.partition("=")
    return Attr(key.rstrip(" \t"), quoted.strip(" \t")[1:-1])


class _ToAttrs(Transformer[Token, list[Attr]]):
    """Turn the parse tree into attributes. Never raises: every rule is total."""

    def start(self, children: list[Token | Attr]) -> list[Attr]:
        return [child for child in children if isinstance(child, Attr)]

    def pair(self, children: list[Token]) -> Attr:
        return _pair(str(children[0]))

    def flag(self, children: list[Token]) -> Attr:
        return Attr(str(children[0]), None)


def grammar_text() -> str:
    """The grammar shipped in the wheel, or the repository's copy in a source checkout."""
    packaged = resources.files("gmtags").joinpath("grammar").joinpath(_GRAMMAR_NAME)
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    source = Path(__file__).resolve().parents[2] / "grammar" / _GRAMMAR_NAME
    return source.read_text(encoding="utf-8")


@cache
def parser(strict: bool = False) -> Lark:
    """The LALR tag parser, built once.

    `strict=True` (used by the tests; it needs `interegular`) makes Lark refuse
    terminals that could collide.
    """
    return Lark(grammar_text(), parser="lalr", transformer=_ToAttrs(), strict=strict)


def _readable_attrs(body: str) -> list[Attr]:
    """Every attribute that can still be read from a tag that did not parse."""
    attrs = []
    for match in _PAIR.finditer(body):
        if match["flag"] is not None:
            attrs.append(Attr(match["flag"], None))
        else:
            attrs.append(Attr(match["key"], match["value"]))
    return attrs


PARSE_CACHE = 1024
"""Tag texts whose parse is kept (a tag is at most 4,096 characters: at most ~4 MB)."""


def parsed_by_lark(raw: str) -> tuple[Attr, ...] | None:
    """The attributes of a whole tag as Lark's parser reads it, None when it does not parse."""
    try:
        return tuple(parser().parse(raw))  # type: ignore[arg-type]
    except LarkError:
        return None


@dataclass(frozen=True, slots=True)
class _Reader:
    """The grammar's own terminals, read in the order its one rule puts them."""

    ignore: re.Pattern[str]
    head: re.Pattern[str]
    pair: re.Pattern[str]
    key: re.Pattern[str]
    close: re.Pattern[str]


@cache
def _reader() -> _Reader:
    """Issue 16: the grammar is regular (`start: HEAD attr* "]"`, blanks ignored), so a tag
    is read with its terminals' own patterns, as Lark's lexer would find them: one token at
    a time, never backtracking, a pair tried before a key (`PAIR.2`). It reads every text
    as `parsed_by_lark` does (tests/tags/test_parse.py) at a tenth of the cost."""
    lark = parser()
    terminals = {terminal.name: terminal.pattern.to_regexp() for terminal in lark.terminals}
    ignored = "|".join(f"(?:{terminals[name]})" for name in lark.ignore_tokens)
    return _Reader(
        ignore=re.compile(f"(?:{ignored})*"),
        head=re.compile(terminals["HEAD"]),
        pair=re.compile(terminals["PAIR"]),
        key=re.compile(terminals["KEY"]),
        close=re.compile(terminals["RSQB"]),
    )


def _parsed(raw: str) -> tuple[Attr, ...] | None:
    """The attributes of a whole tag as the grammar reads them, None when it does not parse."""
    reader = _reader()
    pos = reader.ignore.match(raw).end()  # type: ignore[union-attr]
    head = reader.head.match(raw, pos)
    if head is None:
        return None
    attrs: list[Attr] = []
    pos = head.end()
    while True:
        pos = reader.ignore.match(raw, pos).end()  # type: ignore[union-attr]
        if (pair := reader.pair.match(raw, pos)) is not None:
            attrs.append(_pair(pair[0]))
            pos = pair.end()
        elif (key_match := reader.key.match(raw, pos)) is not None:
            attrs.append(Attr(key_match[0], None))
            pos = key_match.end()
        elif (close := reader.close.match(raw, pos)) is not None:
            end = reader.ignore.match(raw, close.end()).end()  # type: ignore[union-attr]
            return tuple(attrs) if end == len(raw) else None
        else:
            return None


def parse_span(text: str, span: Span, engine_attrs: frozenset[str]) -> ParsedTag:
    """Parse the tag at `span`; what the engine writes is discarded, not trusted.

    The wrapping the scanner found around it (bold, a fence, `\\[`) joins what the
    recovery step repaired in `recovered`. A lone UTF-16 surrogate half inside the tag
    (not valid text, and no model can hold it) reads as U+FFFD; the narration around
    the tag is left as it is.
    """
    tag = _tag(mend_surrogates(span.tag(text)), span.name, span.complete, engine_attrs)
    if not span.wrapping:
        return tag
    wrapping = tuple(code for code in span.wrapping if code not in tag.recovered)
    return replace(tag, recovered=(*wrapping, *tag.recovered))


@lru_cache(maxsize=PARSE_CACHE)
def _tag(raw: str, name: str, complete: bool, engine_attrs: frozenset[str]) -> ParsedTag:
    """The tag `raw` reads as, kept by its text (issue 16).

    A tag written again (the same check in the next reply, a swipe, a transcript
    reprocessed) is the same frozen `ParsedTag`, so it is not parsed again, and
    what is worked out from the tag alone (`gmtags.checks.request`) is kept by it.
    """
    malformed = not complete
    attrs: Sequence[Attr] = ()
    repairs: tuple[str, ...] = ()
    recovery: Recovery | None = None
    parsed = _parsed(raw) if complete else None
    if parsed is not None:
        attrs = parsed
    else:  # §2.1: a variant spelling, made canonical, then read by the grammar itself
        recovery = recover(raw)
        repairs = recovery.repairs
        if recovery.attrs is not None:
            parsed = _parsed(_canonical(recovery.name, recovery.attrs))
        if parsed is None:
            malformed = True
            attrs = _readable_attrs(recovery.body)
        else:
            attrs = parsed
    kept: list[Attr] = []
    discarded: list[str] = []
    seen: set[str] = set()
    for attr in attrs:
        key = attr.key.lower()
        if key in engine_attrs:
            discarded.append(attr.key)
        elif key in seen:
            # Two values for one attribute: which one was meant cannot be told.
            malformed = True
        else:
            seen.add(key)
            kept.append(attr)
    body = (recovery or recover(raw)).body if malformed else ""
    return ParsedTag(name, tuple(kept), raw, malformed, tuple(discarded), repairs, body)


def _canonical(name: str, attrs: Sequence[tuple[str, str | None]]) -> str:
    """The canonical text of a recovered tag, for the grammar to read."""
    parts = [key if value is None else f'{key}="{value}"' for key, value in attrs]
    return f"[{name}: {' '.join(parts)}]"
