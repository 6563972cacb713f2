"""Edit one value inside a JSON text and leave every other byte as it was.

SPEC §6: unknown fields of a saved chat are kept untouched. Re-serialising a
whole message would re-spell what gmtags does not own (`1e3` becomes
`1000.0`, `-0` becomes `0`, `\\u00e9` becomes `é`), so a changed message is
edited in place instead: `splice(text, ("swipe_info", 2, "extra", "gmtags"),
value)` replaces only that member's value text (or inserts the member when it
is missing) and copies every other character of the line.

New values are written the way SillyTavern writes its files (`JSON.stringify`:
no spaces, non-ASCII characters as they are).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()

Path = Sequence[str | int]
"""Where a value lies: object keys and array indexes from the top."""


def dump(value: Any) -> str:
    """A value as compact JSON text, non-ASCII kept (`JSON.stringify`'s spelling)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _skip(text: str, index: int) -> int:
    match = _WS.match(text, index)
    return index if match is None else match.end()


def _value_end(text: str, start: int) -> int:
    _, end = _DECODER.raw_decode(text, start)
    return end


def _members(text: str, start: int) -> list[tuple[str, int, int]]:
    """The members of the object at `start` as (key, value start, value end)."""
    members: list[tuple[str, int, int]] = []
    index = _skip(text, start + 1)
    if text[index] == "}":
        return members
    while True:
        key, index = json.decoder.scanstring(text, index + 1)  # type: ignore[attr-defined]
        index = _skip(text, index)
        value_start = _skip(text, index + 1)  # past ":"
        value_end = _value_end(text, value_start)
        members.append((key, value_start, value_end))
        index = _skip(text, value_end)
        if text[index] == "}":
            return members
        index = _skip(text, index + 1)  # past ","


def _elements(text: str, start: int) -> list[tuple[int, int]]:
    """The elements of the array at `start` as (start, end)."""
    elements: list[tuple[int, int]] = []
    index = _skip(text, start + 1)
    if text[index] == "]":
        return elements
    while True:
        end = _value_end(text, index)
        elements.append((index, end))
        index = _skip(text, end)
        if text[index] == "]":
            return elements
        index = _skip(text, index + 1)


def _nested(path: Path, value: Any) -> Any:
    """`value` wrapped in objects for the keys of `path` (used when they are missing)."""
    for key in reversed(path):
        value = {key: value}
    return value


def _splice_at(text: str, start: int, path: Path, value: Any) -> str:
    if not path:
        end = _value_end(text, start)
        return text[:start] + dump(value) + text[end:]
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        if text[start] != "[":
            raise ValueError("the path names an array element of a value that is not an array")
        elements = _elements(text, start)
        if not 0 <= head < len(elements):
            raise IndexError(f"array index {head} is out of range")
        return _splice_at(text, elements[head][0], rest, value)
    if text[start] != "{":
        # Not an object where one is needed: the whole value is replaced.
        end = _value_end(text, start)
        return text[:start] + dump(_nested(path, value)) + text[end:]
    members = _members(text, start)
    for key, value_start, _ in reversed(members):
        # JSON allows a repeated key and the last one wins when parsed: edit that one.
        if key == head:
            return _splice_at(text, value_start, rest, value)
    member = f"{dump(head)}:{dump(_nested(rest, value))}"
    if members:
        last_end = members[-1][2]
        return text[:last_end] + "," + member + text[last_end:]
    return text[: start + 1] + member + text[start + 1 :]


def splice(text: str, path: Path, value: Any) -> str:
    """`text` (one JSON value) with the value at `path` set to `value`; nothing else changes.

    A missing object member is appended after the object's last member; an
    array index must exist.
    """
    return _splice_at(text, _skip(text, 0), path, value)
