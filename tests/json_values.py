"""Hypothesis strategies for JSON data of any type (SPEC §1 and §8: the library's readers raise
only their own errors on bad input of any JSON type), and for a document with one value put
somewhere it does not belong."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st

Location = tuple[str | int, ...]
"""Where a value lies in JSON data: object keys and array indexes from the top."""

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(["", "id", "kind", "value", "str", "rating_1", "ability/str", "x/y"])
)
"""Every JSON scalar, NaN and infinities included (a dict handed over may hold them), and
words a ruleset, a card or the answers use as keys and ids."""

JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
"""Any JSON value, nested a few levels."""


def locations(value: Any, at: Location = ()) -> Iterator[Location]:
    """Every place in `value`, the top first, then each key and index in document order."""
    yield at
    if isinstance(value, dict):
        for key, item in value.items():
            yield from locations(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from locations(item, (*at, index))


def scalars(value: Any) -> list[Any]:
    """The scalars `value` holds (its ids, labels and numbers), in document order."""
    found: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
        else:
            found.append(item)
    return found


def put(document: Any, at: Location, value: Any) -> Any:
    """A deep copy of `document` with `value` at `at` (the top when `at` is empty)."""
    if not at:
        return value
    changed = copy.deepcopy(document)
    parent = changed
    for step in at[:-1]:
        parent = parent[step]
    parent[at[-1]] = value
    return changed


@st.composite
def replaced_somewhere(draw: st.DrawFn, document: Any) -> tuple[Location, Any]:
    """`document` with the value at one of its places (never the top) replaced by any JSON
    value or by one of the document's own scalars (an id where another kind of value
    belongs reaches the passes that check references); the place and the new document."""
    places = list(locations(document))[1:]
    at = draw(st.sampled_from(places))
    own = scalars(document)
    value = draw(JSON | st.sampled_from(own) if own else JSON)
    return at, put(document, at, value)
