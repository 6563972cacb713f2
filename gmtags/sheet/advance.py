"""`op="advance"`: a permanent change to one field, on a character's sheet or the party's.

002, "Ficha de grupo…": `advancement.fields` names the number, text or
longtext fields the GM may change for good, with `by` (a number field) or `to`
(any of the three); undeclared advances and values a field cannot hold are
refused. 004, "Listas de avance más largas": characters list theirs in
`sheet.advancement.fields` (up to 64). SPEC §8: a value the sheet cannot hold
is refused `invalid-value`, never clamped and never stored.

The function here is pure and works for both sheets: the caller hands it the
declared fields, the advanceable ids, how to read a field's shown value and
how to test `hideWhen`, and stores the value it gets back.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import regex

from gmtags.ruleset.sheet import HideWhen, LongTextField, NumberField, SheetField, TextField
from gmtags.sheet.live import Refused, named
from gmtags.sheet.values import Scalar
from gmtags.text import has_control

_NUMBER = regex.compile(r"[+-]?[0-9]{1,9}(?:\.[0-9]{1,6})?")


@dataclass(frozen=True, slots=True)
class Advanced:
    """An advance that applied: which field, the value to store, the receipt's `now`."""

    field_id: str
    value: Scalar
    now: str


def read_number(text: str) -> int | float | None:
    """A decimal number of bounded length (SPEC §8), an int when it has no fraction."""
    written = text.strip()
    if not _NUMBER.fullmatch(written):
        return None
    return float(written) if "." in written else int(written)


def show(value: Scalar) -> str:
    """A field value as the receipt's `now` shows it (SPEC §3): `3`, not `3.0`; text as is."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _whole_if_can(value: int | float) -> int | float:
    """An int when the number is whole; a fraction kept to the six places a tag can write."""
    if isinstance(value, float):
        value = round(value, 6)
        return int(value) if value.is_integer() else value
    return value


def advance_field(
    fields: Sequence[SheetField],
    advanceable: Collection[str],
    read: Callable[[str], Scalar],
    hidden: Callable[[HideWhen | None], bool],
    written: str,
    by: str | None,
    to: str | None,
    locked: Collection[str] = (),
) -> Advanced | Refused:
    """Advance the field `written` (id or label) `by` a number or `to` a value.

    Refusals: `malformed` (not exactly one of `by` and `to`); `unknown-field`
    (no such field, or hidden by `hideWhen`, ENGINE-NOTES §8); `not-advanceable`
    (not listed, not a number/text/longtext field, or `locked`: a party field
    read from the members); `invalid-value` (a number that does not read, lies
    outside min..max or is not whole on an integer field; `by` on a text field;
    text longer than `maxLength` or holding control characters).
    `now` is `Label value` (`Label cleared` for emptied text).
    """
    if (by is None) == (to is None):
        return Refused("malformed")
    found = named(fields, written)
    if found is None or hidden(found.hide_when):
        return Refused("unknown-field")
    if found.id not in advanceable or found.id in locked:
        return Refused("not-advanceable")
    value: Scalar
    if isinstance(found, NumberField):
        number = read_number(by if by is not None else to or "")
        if number is None:
            return Refused("invalid-value")
        if by is not None:
            current = read(found.id)
            base = (
                current if isinstance(current, int | float) and not isinstance(current, bool) else 0
            )
            number = base + number
        value = _whole_if_can(number)
    elif isinstance(found, TextField | LongTextField):
        if to is None or has_control(to):
            return Refused("invalid-value")
        value = to.strip()
    else:
        return Refused("not-advanceable")
    if found.holds(value) is not None:
        return Refused("invalid-value")
    if isinstance(value, str) and not value:
        return Advanced(found.id, value, f"{found.label} cleared")
    return Advanced(found.id, value, f"{found.label} {show(value)}")
