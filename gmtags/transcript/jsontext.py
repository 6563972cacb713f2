"""Edit one value inside a JSON text and leave every other byte as it was.

SPEC §6: unknown fields of a saved chat are kept untouched. Re-serialising a
whole message would re-spell what gmtags does not own (`1e3` becomes
`1000.0`, `-0` becomes `0`, `\\u00e9` becomes `é`), so a changed message is
edited in place instead: `splice(text, ("swipe_info", 2, "extra", "gmtags"),
value)` replaces only that member's value text (or inserts the member when it
is missing) and copies every other character of the line. `splice_all` sets
many values in one pass (a record in each of a message's swipes).

New values are written the way SillyTavern writes its files (`JSON.stringify`:
no spaces, non-ASCII characters as they are), in strict JSON, a lone UTF-16
surrogate half as its `\\uhhhh` escape (issue 11).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gmtags.jsonfile import dumps

_WS = re.compile(r"[ \t\n\r]*")
# Only finds where a value ends: numbers stay text, so no number of any length is converted.
_DECODER = json.JSONDecoder(parse_int=str, parse_float=str, parse_constant=str)

Path = Sequence[str | int]
"""Where a value lies: object keys and array indexes from the top."""

Edit = tuple[Path, Any]
"""One value to set: where it goes and what it is."""


def dump(value: Any) -> str:
    """A value as compact strict JSON, non-ASCII kept (`JSON.stringify`'s spelling).

    Issue 11: a lone UTF-16 surrogate half is written as the `\\uhhhh` escape
    it was read from, so the line still encodes as UTF-8; NaN and infinities
    raise (`gmtags.jsonfile.dumps`).
    """
    return dumps(value, compact=True)


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


_UNSET: Any = object()


@dataclass(slots=True)
class _Node:
    """The edits below one place of the path tree: a value to set there, or edits inside it."""

    value: Any = _UNSET
    children: dict[str | int, _Node] = field(default_factory=dict)


def _tree(edits: Sequence[Edit]) -> _Node:
    """The edits as one tree of paths, so each object and array is read once."""
    root = _Node()
    for path, value in edits:
        node = root
        for key in path:
            if node.value is not _UNSET:
                raise ValueError("an edit lies inside a value another edit sets")
            node = node.children.setdefault(key, _Node())
        if node.children:
            raise ValueError("an edit sets a value other edits lie inside")
        node.value = value
    return root


def _fresh(node: _Node) -> Any:
    """The value a node's edits make where nothing stands yet: objects nested along the paths."""
    if node.value is not _UNSET:
        return node.value
    return {key: _fresh(child) for key, child in node.children.items()}


Replacement = tuple[int, int, str]
"""`text[start:end]` is to become the new text."""


def _plan(text: str, start: int, node: _Node, out: list[Replacement]) -> None:
    """Append to `out` what the edits under `node` replace in the value at `start`."""
    if node.value is not _UNSET:
        out.append((start, _value_end(text, start), dump(node.value)))
        return
    keys = list(node.children)
    if all(isinstance(key, int) for key in keys):
        if text[start] != "[":
            raise ValueError("the path names an array element of a value that is not an array")
        elements = _elements(text, start)
        for key, child in node.children.items():
            assert isinstance(key, int)
            if not 0 <= key < len(elements):
                raise IndexError(f"array index {key} is out of range")
            _plan(text, elements[key][0], child, out)
        return
    if any(isinstance(key, int) for key in keys):
        raise ValueError("the paths name both array elements and object members of one value")
    if text[start] != "{":
        # Not an object where one is needed: the whole value is replaced.
        out.append((start, _value_end(text, start), dump(_fresh(node))))
        return
    members = _members(text, start)
    # JSON allows a repeated key and the last one wins when parsed: edit that one.
    found = {key: value_start for key, value_start, _ in members}
    added: list[str] = []
    for key, child in node.children.items():
        if key in found:
            _plan(text, found[key], child, out)
        else:
            added.append(f"{dump(key)}:{dump(_fresh(child))}")
    if added:
        at = members[-1][2] if members else start + 1
        out.append((at, at, ("," if members else "") + ",".join(added)))


def splice_all(text: str, edits: Sequence[Edit]) -> str:
    """`text` (one JSON value) with each `(path, value)` of `edits` set; nothing else changes.

    The same as splicing the edits one after another, in one pass: every
    object and array on the paths is read once, so setting a record in each
    of a message's thousands of swipes takes time linear in the line (issue 11).
    Missing members are appended after the object's last member, in the
    order of `edits`; an array index must exist; no edit may lie inside the
    value another sets.
    """
    if not edits:
        return text
    out: list[Replacement] = []
    _plan(text, _skip(text, 0), _tree(edits), out)
    out.sort(key=lambda replacement: replacement[0])
    pieces: list[str] = []
    cursor = 0
    for start, end, new in out:
        pieces.append(text[cursor:start])
        pieces.append(new)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _apply(data: Any, node: _Node) -> Any:
    """What `data` becomes under `node`'s edits, as `_plan` edits its text (`data` stays)."""
    if node.value is not _UNSET:
        return node.value
    keys = list(node.children)
    if all(isinstance(key, int) for key in keys):
        if not isinstance(data, list):
            raise ValueError("the path names an array element of a value that is not an array")
        items = list(data)
        for key, child in node.children.items():
            assert isinstance(key, int)
            if not 0 <= key < len(items):
                raise IndexError(f"array index {key} is out of range")
            items[key] = _apply(items[key], child)
        return items
    if any(isinstance(key, int) for key in keys):
        raise ValueError("the paths name both array elements and object members of one value")
    if not isinstance(data, dict):
        return _fresh(node)
    members = dict(data)
    for key, child in node.children.items():
        members[key] = _apply(data[key], child) if key in data else _fresh(child)
    return members


def apply_all(data: Any, edits: Sequence[Edit]) -> Any:
    """The parsed value of `splice_all(text, edits)`, from the parsed value of `text`.

    The same edits made to JSON data instead of its text: only the objects and
    arrays on the paths are copied (the rest is shared, never changed), members
    a key adds come last in its object, and a value that is not an object where
    a member is set becomes one, as `splice_all` writes them. The values set
    must be JSON data (dicts with string keys, lists, strings, numbers, booleans,
    None): they are kept as they are, as the text's parse would give them back.
    """
    if not edits:
        return data
    return _apply(data, _tree(edits))


def rewrite(text: str, data: Any, edited: Any, edits: Sequence[Edit]) -> str:
    """`splice_all(text, edits)`, given `data` (the parse of `text`) and `edited`
    (`apply_all(data, edits)`).

    Issue 16: when `text` is exactly `dump(data)`, every byte of it is how `dump`
    spells its value, so splicing the edits in gives `dump(edited)`: the line is
    written again whole by the C encoder instead of being walked member by member.
    Any other spelling (spaces, `1e3`, `\\u00e9`, a repeated key, …) is spliced.
    Both are written in one call, as the array `[data, edited]` (`dump` spells an
    array's items as it spells each alone).
    """
    if not edits:
        return text
    both = dump([data, edited])
    end = len(text) + 1
    if both[1:end] == text and both[end] == ",":
        return both[end + 1 : -1]
    return splice_all(text, edits)


def splice(text: str, path: Path, value: Any) -> str:
    """`text` (one JSON value) with the value at `path` set to `value`; nothing else changes.

    A missing object member is appended after the object's last member; an
    array index must exist.
    """
    return splice_all(text, [(path, value)])
