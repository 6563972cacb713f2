"""Recovery: a tag as a model wrote it, made canonical before the grammar reads it (SPEC §2.1).

The grammar (`grammar/gmtags.lark`) is the one reading of a tag. A tag it does
not read may be one of the variants §2.1 lists; this step rewrites such a tag
into the canonical form and names each repair for the receipt's `recovered=`:

| repair | what the model wrote |
|---|---|
| `name` | `skill-check`, `Skill Check`, `skillcheck`, `skill\\_check` |
| `fullwidth` | `［` `］` `：` |
| `escaped` | `\\[ … \\]`, `\\_` |
| `nbsp` | a no-break space for a space |
| `quotes` | `key='value'` |
| `unquoted` | `key=word` (one word: a second bare word is not guessed at) |
| `commas` | `key="a", key2="b"` |
| `colon` | `key: "value"` |

The wrapping a tag came in (bold, italics, inline code, a code fence, `\\[`)
is found by the scanner (`Span.wrapping`). What cannot be read this way stays
unread: the caller refuses it as malformed. Nothing here reads a value's
meaning: placeholders and ladder rungs are the engine's to judge.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmtags.tags.spell import (
    ANY_HEAD,
    CLOSE_BRACKETS,
    ESCAPE,
    LOOSE_ATTR,
    LOOSE_GAP,
    NO_BREAK,
    canonical_name,
)

_UNESCAPE = (("\\_", "_"), ("\\*", "*"), ("\\`", "`"))


@dataclass(frozen=True, slots=True)
class Recovery:
    """A tag's text made canonical where it could be.

    `body` is the attribute text with spellings mended (what a broken tag is
    still read from); `attrs` the attributes read from it, None when they could
    not all be read; `repairs` what was mended, in the table's order.
    """

    name: str
    body: str
    attrs: tuple[tuple[str, str | None], ...] | None
    repairs: tuple[str, ...]


def recover(raw: str) -> Recovery:
    """Read `raw` (a tag from its bracket, as far as the scanner took it) leniently."""
    repairs: list[str] = []
    head = ANY_HEAD.match(raw)
    if head is None:  # the scanner only hands over spans that start with a head
        return Recovery("", raw, None, ())
    name = canonical_name(head["name"])
    if head["name"].lower() != name:
        repairs.append("name")
    body = raw[head.end() :]
    closed = body[-1:] in tuple(CLOSE_BRACKETS)
    if raw[0] == "［" or head["colon"] == "：" or body.endswith("］"):
        repairs.append("fullwidth")
    if closed:
        body = body[:-1]
    escaped = "\\_" in head["name"]
    if closed and body.endswith(ESCAPE):
        body, escaped = body[:-1], True
    for written, meant in _UNESCAPE:
        if written in body:
            body, escaped = body.replace(written, meant), True
    if escaped:
        repairs.append("escaped")
    if any(space in body for space in NO_BREAK):
        body = "".join(" " if c in NO_BREAK else c for c in body)
        repairs.append("nbsp")
    attrs = _read(body, repairs) if closed else None
    return Recovery(name, body, attrs, tuple(repairs))


def _read(body: str, repairs: list[str]) -> tuple[tuple[str, str | None], ...] | None:
    """Every attribute of `body` in the loose spellings, or None if some text is not one."""
    attrs: list[tuple[str, str | None]] = []
    found: set[str] = set()
    pos, end = 0, len(body)
    while True:
        gap = LOOSE_GAP.match(body, pos)
        assert gap is not None  # it matches the empty string
        if "," in gap[0] and attrs:
            found.add("commas")
        pos = gap.end()
        if pos >= end:
            break
        attr = LOOSE_ATTR.match(body, pos)
        if attr is None:
            return None
        pos = attr.end()
        if attr["flag"] is not None:
            attrs.append((attr["flag"], None))
            continue
        if attr["sep"] == ":":
            found.add("colon")
        if attr["dq"] is not None:
            value = attr["dq"][1:-1]
        elif attr["sq"] is not None:
            value = attr["sq"][1:-1]
            found.add("quotes")
        else:
            value = attr["word"]
            found.add("unquoted")
        attrs.append((attr["key"], value))
    repairs.extend(code for code in ("quotes", "unquoted", "commas", "colon") if code in found)
    return tuple(attrs)
