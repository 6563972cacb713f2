"""The shapes of a build's result entries (SPEC §10), typed: what `res.steps` holds per step,
its entry choices and the answers it keeps inactive, and `res.ledger`'s lines.

They are plain JSON objects at run time (a page, the wizard and a script read them as JSON);
the types say which keys each holds, so that every place that writes or reads one is
checked.
"""

from typing import Any, NotRequired, TypedDict

Key = Any
"""What an entry lists: an entry id, a field or target key, a row index, a choice value, as
the answers hold it (SPEC §10: an inactive answer "as it stands in the answers")."""


class Inactive(TypedDict):
    """An answer kept but not counted, and why."""

    answer: Key
    reason: str


class ChoiceEntry(TypedDict):
    """An entry choice shown at a step (`choices` in its entry)."""

    key: str
    count: int
    offered: list[Key]
    active: list[Key]
    inactive: list[Inactive]
    pending: int


class StepEntry(TypedDict):
    """One step's entry in `res.steps`. `required` is false while the step's `requiredWhen`
    reads 0 or less; a roll step adds what it rolled (`rolls`), an initialize step what it
    wrote or would write (`writes`)."""

    id: str
    kind: str
    shown: bool
    required: bool
    pending: int
    reasons: list[str]
    offered: list[Key]
    active: list[Key]
    inactive: list[Inactive]
    choices: list[ChoiceEntry]
    rolls: NotRequired[dict[str, dict[str, Any]]]
    writes: NotRequired[list[dict[str, Any]]]


class LedgerLine(TypedDict):
    """One purchase in `res.ledger`, in purchase order; a line not paid says why, and one a
    pool could not price what it would have bought (`proposed`)."""

    step: str
    offer: str
    delta: Any
    price: int | float
    active: bool
    reason: NotRequired[str]
    proposed: NotRequired[Any]


__all__ = ["ChoiceEntry", "Inactive", "Key", "LedgerLine", "StepEntry"]
