"""Work derived from a ruleset once and kept while the ruleset lives.

A `Ruleset` is immutable, so anything computed from it alone (id indexes,
name tables) can be kept for its lifetime instead of being rebuilt for every
tag. The memo holds the ruleset weakly and forgets the value when the
ruleset is collected.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import wraps
from typing import TypeVar

from gmtags.ruleset.model import Ruleset

T = TypeVar("T")


def per_ruleset(build: Callable[[Ruleset], T]) -> Callable[[Ruleset], T]:
    """Decorate `build(ruleset)` so it runs once per ruleset object."""
    memo: dict[int, tuple[weakref.ref[Ruleset], T]] = {}

    @wraps(build)
    def cached(ruleset: Ruleset) -> T:
        key = id(ruleset)
        found = memo.get(key)
        if found is not None and found[0]() is ruleset:
            return found[1]
        value = build(ruleset)

        def forget(_: weakref.ref[Ruleset], key: int = key) -> None:
            memo.pop(key, None)

        memo[key] = (weakref.ref(ruleset, forget), value)
        return value

    return cached
