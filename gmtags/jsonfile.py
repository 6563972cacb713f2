"""Strict JSON: what every file gmtags reads must be, and how every file it writes is spelled.

Issue 11 and SPEC §8: bad input gets a clear error naming where it is, and no
input makes a reader recurse without bound or work in proportion to the digits
of a number. Python's `json` reads more than JSON and fails in ways that are
not errors about the file: it accepts `NaN`, `Infinity` and `-Infinity`, it
raises `RecursionError` on deep nesting and `ValueError` on an integer past
4300 digits, and reads `1e999` as infinity. `loads` refuses every one of them
with the line and column where it is, as a `JsonTextError` that each loader
(ruleset, snapshot, chat line) turns into its own error.

`dumps` is the one writer: strict JSON (`allow_nan=False`), non-ASCII kept as
it is, and a lone UTF-16 surrogate half written as the `\\uhhhh` escape JSON
allows, so that text read from a file with one can be written back in UTF-8.

`data_problem` checks JSON data handed over as Python objects (`load_ruleset(dict)`,
`load_snapshot(dict)`) against the same rules, walking it without recursion.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from gmtags.errors import GmtagsError

DEPTH = 100
"""Decision: at most this many arrays and objects inside one another.

The deepest file gmtags knows nests about ten levels (a ruleset's sheet lists,
a chat line's `swipe_info[k].extra.gmtags`); a hundred leaves room for any
front end's extensions and keeps every walk over the data far from Python's
recursion limit.
"""

INTEGER_DIGITS = 21
"""Decision: an integer is read with at most this many digits.

JavaScript's `JSON.stringify` writes every integer below 1e21 in full and
switches to exponent form from there, so every number SillyTavern, a front end
or the reference engine (TypeScript) writes is read, while an integer of
thousands of digits is refused before Python converts it.
"""

_BIGGEST = 10**INTEGER_DIGITS
# A string (skipped whole, so the brackets inside it do not count) or a bracket; a quote
# that opens no complete string ends the scan (the decoder then says where), so a text
# of many unclosed quotes is still read once, never once per quote.
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_STRUCTURE = re.compile(rf'{_STRING}|["\[\]{{}}]')
# A string, or a number or literal outside strings (used only to place an error).
_TOKEN = re.compile(rf'{_STRING}|"|(NaN|-?Infinity|-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)')
_SURROGATE = re.compile(r"[\ud800-\udfff]")


class JsonTextError(GmtagsError):
    """Text that is not strict JSON: why, and where (line and column count from 1)."""

    def __init__(self, message: str, text: str, position: int) -> None:
        self.message = message
        self.position = position
        self.line = text.count("\n", 0, position) + 1
        self.column = position - text.rfind("\n", 0, position)
        super().__init__(f"{message} at line {self.line}, column {self.column}")


class _Refused(Exception):
    """Raised by a decoder hook: the token it was given, and why it is refused."""

    def __init__(self, token: str, message: str) -> None:
        super().__init__(message)
        self.token = token
        self.message = message


def _constant(token: str) -> Any:
    raise _Refused(token, f"{token} is not allowed (a gmtags file is strict JSON)")


def _integer(token: str) -> int:
    digits = len(token) - token.startswith("-")
    if digits > INTEGER_DIGITS:
        raise _Refused(
            token, f"an integer of {digits} digits is too long (at most {INTEGER_DIGITS})"
        )
    return int(token)


def _float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        shown = token if len(token) <= 24 else f"{token[:20]}…"
        raise _Refused(token, f"the number {shown} is too large to hold")
    return value


_DECODER = json.JSONDecoder(parse_int=_integer, parse_float=_float, parse_constant=_constant)


def _too_deep(text: str) -> int | None:
    """Where nesting first goes past `DEPTH`, or None (checked before the decoder recurses)."""
    if text.count("[") + text.count("{") <= DEPTH:
        return None
    depth = 0
    for match in _STRUCTURE.finditer(text):
        start = match.start()
        char = text[start]
        if char == '"':
            if match.end() - start == 1:
                return None  # an unclosed string: not JSON, whatever its depth
        elif char in "[{":
            depth += 1
            if depth > DEPTH:
                return start
        else:
            depth -= 1
    return None


def _place(text: str, token: str) -> int:
    """Where `token` first stands outside a string (a hook decides by its text alone)."""
    for match in _TOKEN.finditer(text):
        if match.group(1) == token:
            return match.start()
        if match.group() == '"':
            break
    return 0


def loads(text: str) -> Any:
    """Parse strict JSON text; `JsonTextError` (with line and column) for anything else.

    Refused: what `json` calls invalid, nesting deeper than `DEPTH`, `NaN` and
    `±Infinity`, integers longer than `INTEGER_DIGITS` digits, and numbers too
    large for a float.
    """
    deep = _too_deep(text)
    if deep is not None:
        raise JsonTextError(f"nested deeper than {DEPTH} arrays and objects", text, deep)
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as error:
        raise JsonTextError(f"not valid JSON: {error.msg}", text, error.pos) from None
    except _Refused as refused:
        raise JsonTextError(refused.message, text, _place(text, refused.token)) from None
    except RecursionError:  # only when called already deep in the stack
        raise JsonTextError(f"nested deeper than {DEPTH} arrays and objects", text, 0) from None


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def dumps(value: Any, *, indent: int | None = None, compact: bool = False) -> str:
    """`value` as strict JSON text, non-ASCII kept, lone surrogate halves escaped.

    `compact` writes no spaces (`JSON.stringify`'s spelling); a non-finite
    float raises `ValueError` (a programmer error: every reader refuses them).
    """
    if indent is None:
        text = (_COMPACT if compact else _SPACED)(value)
    else:
        separators = (",", ":") if compact else None
        text = json.dumps(
            value, ensure_ascii=False, allow_nan=False, indent=indent, separators=separators
        )
    # Outside strings JSON text is ASCII, so a surrogate here lies inside one.
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(_escape_surrogate, text)


# Issue 16: `json.dumps` with options builds an encoder at every call; these are built once.
_COMPACT = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
_SPACED = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def scalar_problem(value: Any) -> str | None:
    """Why a parsed JSON scalar could not have come from a strict file, or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not allowed (a gmtags file is strict JSON)"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _BIGGEST:
        return f"an integer of more than {INTEGER_DIGITS} digits is too long"
    return None


def json_type(value: Any) -> str:
    """What JSON calls the type of parsed `value`, for a message ("the answers are a JSON
    object, not an array")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


Location = tuple[str | int, ...]
"""Where a value lies in JSON data: object keys and array indexes from the top."""


def _children(value: Any) -> Iterator[tuple[str | int, Any]]:
    if isinstance(value, dict):
        yield from value.items()
    elif isinstance(value, list | tuple):
        yield from enumerate(value)


def data_problem(value: Any) -> tuple[Location, str] | None:
    """The first place in JSON data that a strict file could not hold, and why; None if none.

    The walk keeps its own stack, so nesting of any depth is reported, never
    a `RecursionError`; a key that is not a string is refused as JSON has none.
    """
    stack: list[tuple[Location, Any]] = [((), value)]
    while stack:
        location, item = stack.pop()
        if isinstance(item, dict | list | tuple):
            if len(location) >= DEPTH:
                return location, f"nested deeper than {DEPTH} arrays and objects"
            children = list(_children(item))
            for key, child in reversed(children):
                if isinstance(item, dict) and not isinstance(key, str):
                    return location, f"the key {key!r} is not a string"
                stack.append(((*location, key), child))
        else:
            problem = scalar_problem(item)
            if problem is not None:
                return location, problem
    return None
