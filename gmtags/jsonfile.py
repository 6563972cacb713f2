"""Strict JSON: what every file gmtags reads must be, and how every file it writes is spelled.

Issue 11 and SPEC §8: bad input gets a clear error naming where it is, and no
input makes a reader recurse without bound or work in proportion to the digits
of a number. Python's `json` reads more than JSON and fails in ways that are
not errors about the file: it accepts `NaN`, `Infinity` and `-Infinity`, it
raises `RecursionError` on deep nesting and `ValueError` on an integer past
4300 digits, and reads `1e999` as infinity. `loads` refuses every one of them
with the line and column where it is, as a `JsonTextError` that each loader
(ruleset, snapshot, chat line) turns into its own error. It also refuses an
object that holds one key twice (SPEC §8; `json` keeps the last silently,
so an author's misspelt copy of a section would win unseen), and, asked to
(`surrogates=False`), a string holding a lone UTF-16 surrogate half.

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
# A string that is an object's key (a colon follows it) or any other string, or a bracket;
# a quote that opens no complete string ends the scan, as in `_STRUCTURE`.
_KEYED = re.compile(rf'({_STRING})[ \t\n\r]*(:)?|[\[\]{{}}"]')
# Every escape in JSON text (outside strings valid JSON has no backslash), and whether the
# text may hold an escaped surrogate half at all (a quick test before the exact one).
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)
_MAYBE_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")

LONE_SURROGATE = "a lone UTF-16 surrogate half is not text (a string holds one)"


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


class _Repeated(Exception):
    """Raised by the object hook: an object holds a key twice (where is found afterwards)."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The decoder's object hook: the object, unless a key repeats (`_Repeated`)."""
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _Repeated
    return found


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


_DECODER = json.JSONDecoder(
    parse_int=_integer, parse_float=_float, parse_constant=_constant, object_pairs_hook=_object
)
_LAST_KEY_WINS = json.JSONDecoder(parse_int=_integer, parse_float=_float, parse_constant=_constant)


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


def spelt(key: str) -> str:
    """A key as JSON spells it, cut to a length a message can hold."""
    quoted = json.dumps(key if len(key) <= 60 else f"{key[:57]}...", ensure_ascii=False)
    return _SURROGATE.sub(_escape_surrogate, quoted)


def _repeated(text: str) -> tuple[str, int] | None:
    """The first key that repeats within its object, and where its second time starts.

    Read only once the decoder has found a repeat (so the text is JSON up to it): one pass
    over the strings and brackets, each object's keys compared as the decoder reads them
    (`"a"` and `"\\u0061"` are one key)."""
    objects: list[set[str] | None] = []
    for match in _KEYED.finditer(text):
        start = match.start()
        char = text[start]
        if char in "{[":
            objects.append(set() if char == "{" else None)
        elif char in "]}":
            if objects:
                objects.pop()
        elif match.group(1) is None:
            return None  # an unclosed string: the decoder would not have got here
        elif match.group(2) is not None and objects and objects[-1] is not None:
            key = json.decoder.scanstring(text, start + 1)[0]  # type: ignore[attr-defined]
            if key in objects[-1]:
                return key, start
            objects[-1].add(key)
    return None


def _raw_surrogate(text: str) -> int | None:
    """Where `text` first holds a surrogate half as a character, or None (UTF-8 cannot
    encode one, and the codec finds it several times faster than a regular expression)."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return error.start
    return None


def lone_surrogate(text: str) -> int | None:
    """Where JSON text first holds a lone UTF-16 surrogate half in a string, or None.

    Both spellings: the character itself (a Python text can hold one) and its escape
    (`"\\ud800"`), an escape being lone unless a high half (`\\ud800`–`\\udbff`) is
    followed at once by a low one (`\\udc00`–`\\udfff`), which together are one character.
    Text with neither is passed over at the speed of a search in C."""
    found = _raw_surrogate(text)
    if "\\u" not in text or not _MAYBE_ESCAPED_SURROGATE.search(text):
        return found
    high_end = -1  # where the escape of a high half not yet paired ends
    high_at = -1
    for match in _ESCAPE.finditer(text):
        if found is not None and match.start() > found:
            break
        unit = int(match.group(1), 16) if match.group(1) else -1
        if 0xDC00 <= unit <= 0xDFFF and match.start() == high_end:
            high_end = -1  # a pair: one character
            continue
        if high_end != -1:
            return high_at  # the high half before this escape stood alone
        if 0xD800 <= unit <= 0xDBFF:
            high_at, high_end = match.start(), match.end()
        elif 0xDC00 <= unit <= 0xDFFF:
            return match.start()
    return high_at if high_end != -1 else found


def loads(text: str, *, surrogates: bool = True, duplicates: bool = False) -> Any:
    """Parse strict JSON text; `JsonTextError` (with line and column) for anything else.

    Refused: what `json` calls invalid, nesting deeper than `DEPTH`, `NaN` and
    `±Infinity`, integers longer than `INTEGER_DIGITS` digits, numbers too
    large for a float, and an object holding the same key twice (SPEC §8;
    keys compare as decoded, so `"a"` and `"\\u0061"` are the same key).

    `surrogates=False` also refuses a string holding a lone UTF-16 surrogate
    half (`"\\ud800"`, escaped or not), which is no text: what request bodies
    (SPEC §8), ruleset files and answers files are read with. The default keeps
    them, as `dumps` writes them back, because SPEC §8 says "a chat that
    already holds such text (from an older version or a file) still works":
    SillyTavern's chat files and the states gmtags wrote from them may hold one.

    `duplicates=True` reads a repeated key as `json` does (the last one wins):
    what a chat file's lines are read with, for the same reason (a chat file
    from elsewhere with a repeated key still works, and is written back
    byte for byte: `gmtags.transcript`).
    """
    deep = _too_deep(text)
    if deep is not None:
        raise JsonTextError(f"nested deeper than {DEPTH} arrays and objects", text, deep)
    try:
        value = (_LAST_KEY_WINS if duplicates else _DECODER).decode(text)
    except json.JSONDecodeError as error:
        raise JsonTextError(f"not valid JSON: {error.msg}", text, error.pos) from None
    except _Refused as refused:
        raise JsonTextError(refused.message, text, _place(text, refused.token)) from None
    except _Repeated:
        key, at = _repeated(text) or ("?", 0)
        raise JsonTextError(f"the key {spelt(key)} is repeated in one object", text, at) from None
    except RecursionError:  # only when called already deep in the stack
        raise JsonTextError(f"nested deeper than {DEPTH} arrays and objects", text, 0) from None
    if not surrogates:
        lone = lone_surrogate(text)
        if lone is not None:
            raise JsonTextError(LONE_SURROGATE, text, lone)
    return value


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


def text_problem(value: str) -> str | None:
    """Why a string (a value or a key) is no text, or None: a lone UTF-16 surrogate half."""
    return None if _raw_surrogate(value) is None else LONE_SURROGATE


def scalar_problem(value: Any, *, surrogates: bool = True) -> str | None:
    """Why a parsed JSON scalar could not have come from a strict file, or None
    (`surrogates=False`: nor from one read with `loads(text, surrogates=False)`)."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not allowed (a gmtags file is strict JSON)"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _BIGGEST:
        return f"an integer of more than {INTEGER_DIGITS} digits is too long"
    if not surrogates and isinstance(value, str):
        return text_problem(value)
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


def data_problem(value: Any, *, surrogates: bool = True) -> tuple[Location, str] | None:
    """The first place in JSON data that a strict file could not hold, and why; None if none.

    The walk keeps its own stack, so nesting of any depth is reported, never
    a `RecursionError`; a key that is not a string is refused as JSON has none.
    `surrogates=False` holds the data to `loads(text, surrogates=False)`: a key or
    a string holding a lone UTF-16 surrogate half is refused too.
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
                if not surrogates and isinstance(key, str) and text_problem(key):
                    return location, f"the key {spelt(key)}: {LONE_SURROGATE}"
                stack.append(((*location, key), child))
        else:
            problem = scalar_problem(item, surrogates=surrogates)
            if problem is not None:
                return location, problem
    return None
