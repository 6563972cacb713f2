"""Reading a `[skill_check:]` receipt's numbers back, for the audits `rebuild` runs (SPEC §6).

A receipt is text the chat kept; its attributes are read as they are written
(`used`, `modifier`, `total` signed integers of at most 12 digits, `dice`
as `NdS`), and anything else is no number at all.
"""

from __future__ import annotations

from collections.abc import Mapping

import regex

Attrs = Mapping[str, str | None]
"""A receipt's attributes as written."""

DICE = regex.compile(r"([0-9]{1,3})d([0-9]{1,4})")
_INT = regex.compile(r"[+-]?[0-9]{1,12}")

NOT_NUMBERS = "used, modifier and total must be integers"


def int_attr(attrs: Attrs, key: str) -> int | None:
    """An integer attribute, or None when it is absent or not a whole number."""
    value = attrs.get(key)
    return int(value) if value is not None and _INT.fullmatch(value.strip()) else None


def is_int(text: str) -> bool:
    """True when `text` is a whole number as a receipt writes one."""
    return _INT.fullmatch(text) is not None


def numbers(attrs: Attrs) -> tuple[int, int, int] | None:
    """`used`, `modifier` and `total`, or None unless all three are integers."""
    used, modifier, total = (int_attr(attrs, key) for key in ("used", "modifier", "total"))
    if used is None or modifier is None or total is None:
        return None
    return used, modifier, total


def unmodified(modifier: int, check: str) -> list[str]:
    """A kind whose checks take no modifier: the problem when a receipt shows one."""
    return [] if modifier == 0 else [f"{check} has modifier 0, not {modifier}"]


def summed(used: int, modifier: int, total: int) -> list[str]:
    """`total == used + modifier`: the problem when a receipt's total is not that sum."""
    if total == used + modifier:
        return []
    return [f"total {total} is not used {used} + modifier {modifier}"]


def dice_count(attrs: Attrs) -> int | None:
    """N of `dice="NdS"`, or None."""
    dice = DICE.fullmatch(attrs.get("dice") or "")
    return None if dice is None else int(dice[1])
