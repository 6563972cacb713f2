"""Parse one tag span with the Lark grammar (SPEC §2).

Lark lives here and nowhere else. The parser is built once and cached, and so
is the parse of the last tag texts seen; Lark's exceptions are turned into a
malformed `ParsedTag` at this one place, so bad model output is a value, never
an exception.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path

import regex
from lark import Lark, Token, Transformer
from lark.exceptions import LarkError

from gmtags.tags.scan import FLAGS, Span
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


class _ToAttrs(Transformer[Token, list[Attr]]):
    """Turn the parse tree into attributes. Never raises: every rule is total."""

    def start(self, children: list[Token | Attr]) -> list[Attr]:
        return [child for child in children if isinstance(child, Attr)]

    def pair(self, children: list[Token]) -> Attr:
        key, _, quoted = str(children[0]).partition("=")
        return Attr(key.rstrip(" \t"), quoted.strip(" \t")[1:-1])

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


@lru_cache(maxsize=PARSE_CACHE)
def _parsed(raw: str) -> tuple[Attr, ...] | None:
    """The attributes of a whole tag as the grammar reads them, None when it does not parse.

    Issue 16: kept by the tag's text, so a tag written again (the same check in the next
    reply, a swipe, a transcript reprocessed) is not parsed again; `Attr` is frozen.
    """
    try:
        return tuple(parser().parse(raw))  # type: ignore[arg-type]
    except LarkError:
        return None


def parse_span(text: str, span: Span, engine_attrs: frozenset[str]) -> ParsedTag:
    """Parse `text[span.start:span.end]`; what the engine writes is discarded, not trusted.

    A lone UTF-16 surrogate half inside the tag (not valid text, and no model can hold
    it) reads as U+FFFD; the narration around the tag is left as it is.
    """
    raw = mend_surrogates(text[span.start : span.end])
    malformed = not span.complete
    attrs: Sequence[Attr] = ()
    if span.complete:
        parsed = _parsed(raw)
        if parsed is None:
            malformed = True
        else:
            attrs = parsed
    if malformed:
        colon = raw.find(":")
        body = raw[colon + 1 :]
        if body.endswith("]"):
            body = body[:-1]
        attrs = _readable_attrs(body)
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
    return ParsedTag(span.name, tuple(kept), raw, malformed, tuple(discarded))
