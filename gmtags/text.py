"""Small text rules shared by every stage: prompt-safe text, receipt values, integers."""

from __future__ import annotations

from functools import lru_cache

import regex

# SCHEMA-NOTES §1: prompt-safe text has no line breaks, no control characters,
# no square brackets and no macro braces.
_UNSAFE_CHAR = regex.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029\[\]]")
_CONTROL = regex.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# Receipt values: whatever would stop the receipt from parsing again becomes a space.
_RECEIPT_UNSAFE = regex.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\"\u201c\u201d\[\]]")
_SPACES = regex.compile(r"\s+")
# Most values need no cleaning: no unsafe character, single spaces, no edge space.
_ALREADY_CLEAN = regex.compile(
    r"(?:[^\s\x00-\x1f\x7f-\x9f\u2028\u2029\"\u201c\u201d\[\]](?: (?=\S))?)*"
)
# A sign, the leading zeros, then the digits that count (at least one).
_INTEGER = regex.compile(r"([+-]?)0*([0-9]+)")


def prompt_safe_problem(value: str) -> str | None:
    """Why `value` is not prompt-safe text, or None when it is."""
    if not value:
        return "must not be empty"
    if _UNSAFE_CHAR.search(value):
        return "must be one line without control characters or square brackets"
    if "{{" in value or "}}" in value:
        return "must not contain macro braces {{ or }}"
    return None


def has_control(value: str) -> bool:
    """True when `value` holds a control or line-break character."""
    return _CONTROL.search(value) is not None


def _is_clean(value: str) -> bool:
    """True when cleaning would not change `value` (string methods first, regex for the rest)."""
    if value.isascii():
        return (
            value.isprintable()
            and '"' not in value
            and "[" not in value
            and "]" not in value
            and "  " not in value
            and value.strip() == value
        )
    return _ALREADY_CLEAN.fullmatch(value) is not None


def clean_value(value: str, limit: int) -> str:
    """A value as a receipt writes it: unsafe characters become spaces, runs of space fold,
    and a lone UTF-16 surrogate half (not text) becomes U+FFFD, as a tag reads it."""
    if len(value) <= _SHORT:
        return _clean_short(value, limit)
    return _clean(value, limit)


_SHORT = 48
"""Short values (numbers, results, names, dice) recur in every receipt: they are kept."""


def _clean(value: str, limit: int) -> str:
    if not value.isascii():
        value = mend_surrogates(value)
    if len(value) <= limit and _is_clean(value):
        return value
    cleaned = _SPACES.sub(" ", _RECEIPT_UNSAFE.sub(" ", value)).strip()
    return cleaned[:limit].rstrip()


_clean_short = lru_cache(maxsize=4096)(_clean)


def parse_int(value: str | None, digits: int, *, saturate: bool = False) -> int | None:
    """A signed decimal integer of at most `digits` digits, or None.

    SPEC §8: numbers are read with a bounded length, so no tag can make the
    engine work in proportion to a number it wrote: the length is decided
    from the text (leading zeros do not count) and a longer number is never
    converted. It is None, or with `saturate` it reads as the largest number
    of `digits` digits with its sign, so whoever reads it clamps it like any
    other number too big for its range (000: "los valores fuera de rango se
    ajustan al extremo más cercano").
    """
    if value is None:
        return None
    text = value.strip()
    match = _INTEGER.fullmatch(text)
    if match is None:
        return None
    if match.end(2) - match.start(2) > digits:
        if not saturate:
            return None
        largest: int = 10**digits - 1
        return -largest if match.group(1) == "-" else largest
    return int(match.group(1) + match.group(2))


_SURROGATE = regex.compile(r"[\ud800-\udfff]")


def mend_surrogates(text: str) -> str:
    """`text` with UTF-16 surrogate pairs joined into their characters and lone halves as U+FFFD.

    JSON may spell a character outside the Basic Multilingual Plane as two
    escaped halves (`"\\ud83d\\ude00"`), and a model server may even send the
    halves in two pieces of a stream; Python keeps a lone half as it is, and
    such a string cannot be encoded to UTF-8.
    """
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
