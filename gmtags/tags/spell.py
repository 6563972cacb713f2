"""How models spell a tag (SPEC §2, §2.1): the one place that knows tag spellings.

The canonical tag is `[name: key="value"]`; the grammar (`grammar/gmtags.lark`)
reads only that. Models also write the variants §2.1 lists, and this module
names every one of them, as patterns the scanner (`scan`) and the recovery
step (`recover`) share:

- the head: `[`, or the full-width `［`; the name in any ASCII case, with `_`,
  `-`, a space, a no-break space, nothing, or a markdown-escaped `\\_` between
  "skill" and "check"; blanks; `:` or the full-width `：`;
- what may wrap a tag: a run of `*`, `_` or backticks before it, mirrored after
  it (bold, italics, inline code), a markdown escape `\\[ … \\]`, and a code
  fence opened on the line before it and closed on the line after;
- reasoning, which is never play: `<think>`, `<thinking>`, `<reasoning>` up to
  their closing tag.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

import regex

TAG_NAMES = ("skill_check", "sheet", "clock")
FLAGS = ("clear",)
"""The bare flags a tag may be read with outside the grammar (a well-formed tag may hold any)."""

BLANKS = " \t\u00a0\u202f"
"""What may stand for a space inside a tag: §2.1, a no-break space (narrow too) for a space."""
NO_BREAK = "\u00a0\u202f"


def _ascii_caseless(word: str) -> str:
    # ASCII-only case folding: `(?i)` would also let the long s (ſ) match "s".
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in word)


_SKILL, _CHECK = _ascii_caseless("skill"), _ascii_caseless("check")
NAME = (
    rf"{_SKILL}(?:[_\- \u00a0]|\\_)?{_CHECK}"
    rf"|{_ascii_caseless('sheet')}|{_ascii_caseless('clock')}"
)
"""A tag name as models write it (§2.1): any ASCII case, and four ways to join "skill check"."""
_AFTER_BRACKET = rf"(?P<name>{NAME})[ \t\u00a0\u202f]*+(?P<colon>[:：])"

HEAD = re.compile(rf"\[{_AFTER_BRACKET}")
"""A head opened by `[`. Its literal first character keeps the search fast on narration."""
WIDE_HEAD = re.compile(rf"［{_AFTER_BRACKET}")
"""A head opened by the full-width `［`."""
ANY_HEAD = re.compile(rf"[\[［]{_AFTER_BRACKET}")
"""Either head, matched where a bracket is known to be."""
PARTIAL_HEAD = regex.compile(ANY_HEAD.pattern)
"""`ANY_HEAD` on the `regex` engine, which tells a head still being written (`partial=True`)."""
_SPELLINGS = ("skill_check", "skill-check", "skill check", "skill\u00a0check", "skillcheck",
              "skill\\_check", "sheet", "clock")  # fmt: skip
_NAME_PREFIXES = frozenset(name[:i] for name in _SPELLINGS for i in range(len(name) + 1))
_WHOLE_NAMES = frozenset(_SPELLINGS)


def may_become_head(rest: str) -> bool:
    """Whether `[` + `rest` may still become a head as more text comes (a proper prefix of
    one): a name being written, or a whole name and blanks before the colon. As cheap as
    two set lookups (the stream asks on every bracket); `PARTIAL_HEAD` is its oracle."""
    lowered = rest.lower()
    if lowered in _NAME_PREFIXES:
        return True
    name = lowered.rstrip(" \t\u00a0\u202f")
    return len(name) < len(lowered) and name in _WHOLE_NAMES


HEAD_START = re.compile(
    r"[\[［](?:["
    + "".join(sorted({c for name in TAG_NAMES for c in (name[0].lower(), name[0].upper())}))
    + r"]|\Z)"
)
"""A bracket that may begin a head: a name's initial follows it, or nothing yet. Most
brackets in narration fail it (`[OOC: …]`, `[1]`)."""
OPEN_BRACKETS = "[［"
CLOSE_BRACKETS = "]］"
WIDE = "［］："
"""The full-width bracket and colon (§2.1)."""

WRAPPERS = "*_`"
"""Bold, italics and inline code: a run of them before a tag and its mirror after it."""
MAX_WRAP = 3
"""The longest wrapping run read (`***` is bold italics)."""
ESCAPE = "\\"

_QUOTED = r"[\"\u201c\u201d][^\"\u201c\u201d\r\n]*+[\"\u201c\u201d]"
_SAFE_QUOTED = r"[\"\u201c\u201d][^\"\u201c\u201d\r\n\[\]［］]*+[\"\u201c\u201d]"
_SINGLE = r"['\u2018\u2019][^'\u2018\u2019\r\n\[\]［］]*+['\u2018\u2019]"
_KEY = r"[A-Za-z_][A-Za-z0-9_]*+"
_WORD = r"[^\s\"'\u201c\u201d\u2018\u2019,\[\]［］=]++"
_FLAG = "|".join(FLAGS)

BODY = re.compile(rf"(?:[^\]\[［］\r\n\"\u201c\u201d]++|{_QUOTED})*+[\]］]")
"""The shape of a whole tag after its head: anything but brackets, quotes and
line breaks, or a quoted value (which may hold brackets), then a closing bracket."""
READABLE = re.compile(
    rf"(?:[ \t\u00a0\u202f,]*+(?:{_KEY}[ \t]*=[ \t]*{_SAFE_QUOTED}|(?:{_FLAG})(?![A-Za-z0-9_=])))*+"
)
"""What can be read of a broken tag: key="value" pairs (no brackets inside, so a runaway
quote cannot reach into the next tag) and the known bare flags."""
CLOSE = re.compile(r"[^\[\]［］\r\n]*+[\]］]")
"""A broken tag still ends at the next closing bracket on its line, unless "[" comes first."""

PAIR_SEPARATORS = ",;"
LOOSE_ATTR = regex.compile(
    rf"(?P<key>{_KEY})[ \t]*(?P<sep>[=:])[ \t]*"
    rf"(?:(?P<dq>{_QUOTED})|(?P<sq>{_SINGLE})|(?P<word>{_WORD}))"
    rf"|(?P<flag>(?:{_FLAG}))(?![A-Za-z0-9_=:])"
)
"""One attribute as models write it (§2.1): `key="v"`, `key='v'`, `key=word`, `key: "v"`."""
LOOSE_GAP = regex.compile(r"[ \t]*+(?:,[ \t]*+)?")
"""Between two attributes: blanks, or a comma and blanks."""

_ATTRS_TO_CLOSE = (
    rf"(?:(?:{_KEY}[ \t]*[=:][ \t]*(?:{_SAFE_QUOTED}|{_SINGLE}|{_WORD})|{_FLAG})[ \t,]*+)*+"
    r"\\?[\]］]"
)
CONTINUATION = regex.compile(rf"(?:\r\n|\r|\n)[ \t]*+{_ATTRS_TO_CLOSE}")
"""The rest of a tag the model broke over two lines: attributes, then its closing bracket."""
CONTINUATION_IN_QUOTE = regex.compile(
    rf"(?:\r\n|\r|\n)[^\"\u201c\u201d\r\n\[\]［］=]*+[\"\u201c\u201d][ \t,]*+{_ATTRS_TO_CLOSE}"
)
"""The same when the line broke inside a quoted value: the rest of the value first."""

FENCE_OPEN = re.compile(r"(?:`{3,}[^`\r\n]*+|~{3,}[^\r\n]*+)")
"""A line that opens a code fence (markdown: three backticks or tildes, an info string),
from the line's first character (an indented fence is left as it is)."""
FENCE_START = re.compile(r"(?:`{1,2}|~{1,2})")
"""The start of a fence line still being written."""

REASONING = ("think", "thinking", "reasoning")
REASONING_OPEN = re.compile(
    "<(" + "|".join(_ascii_caseless(name) for name in REASONING) + ")>"
)  # no IGNORECASE flag: its literal "<" keeps the search as fast as a `find`
"""Reasoning opens: what follows, up to its closing tag or the reply's end, is never play."""
REASONING_CLOSE = {name: re.compile(rf"</{name}>", re.IGNORECASE | re.ASCII) for name in REASONING}
OPENERS = tuple(f"<{name}>" for name in REASONING)


@cache
def canonical_name(written: str) -> str:
    """The tag name a written one means: `Skill-Check` and `skill\\_check` are `skill_check`."""
    letters = "".join(c for c in written.lower() if c.isalpha())
    return "skill_check" if letters == "skillcheck" else letters


def wrapping_names(run: str) -> tuple[str, ...]:
    """What a wrapping run is, for `recovered=`: inline code, bold, italics."""
    names = []
    if "`" in run:
        names.append("code")
    stars = run.replace("`", "")
    if len(stars) >= 2:
        names.append("bold")
    if len(stars) % 2 == 1:
        names.append("italics")
    return tuple(names)


PLACEHOLDER = re.compile(r"\s*+(?:<[^>]*+>|\.{2,}+|…++|[XxNn]|\?++|)\s*+")
"""A value that stands for one not written (§2.1): `<skill>`, `...`, `…`, `X`, `N`, `?`, ``."""
MAY_BE_EMPTY = {"sheet": frozenset({"value"})}
"""Attributes an empty value means something on: a note cleared (`[sheet: op="note" value=""]`)."""


def placeholder(name: str, attrs: Iterable[tuple[str, str | None]]) -> str | None:
    """The first attribute whose value is a placeholder (SPEC §2.1), else None."""
    empty_ok = MAY_BE_EMPTY.get(name, frozenset())
    for key, value in attrs:
        if value is None or (not value and key.lower() in empty_ok):
            continue
        if PLACEHOLDER.fullmatch(value):
            return key
    return None
