"""What the resolution models share: problem locations, prompt-safe text, the ladder rung.

The rules between keys report `Found` problems, each a location below the
model and a message; `raise_found` raises them all at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import (
    AfterValidator,
    PlainValidator,
    StringConstraints,
    ValidationError,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from gmtags.ruleset.base import PromptSafe80, RulesetModel, check_prompt_safe

Loc = tuple[str | int, ...]
"""A JSON location below the model being validated, as pydantic spells one."""

Found = list[tuple[Loc, str]]
"""Problems found by the rules between keys: each a location and a message."""


def detail(loc: Loc, kind: str, message: str, value: object) -> InitErrorDetails:
    return InitErrorDetails(type=PydanticCustomError(kind, message), loc=loc, input=value)


def raise_found(found: Found, title: str) -> None:
    """Raise every problem in `found` at once, each at its own location."""
    if found:
        raise ValidationError.from_exception_data(
            title, [detail(loc, "resolution_rule", message, None) for loc, message in found]
        )


PromptSafe200 = Annotated[str, StringConstraints(max_length=200), AfterValidator(check_prompt_safe)]
"""One prompt-safe line of at most 200 characters (000: a tier's `text`)."""


def _no_spend(value: object) -> None:
    if value is not None:
        raise PydanticCustomError(
            "spend_kind",
            "only dice-pool, dice-highest and symbol-pool rulesets can declare spend",
        )
    return None


NoSpend = Annotated[None, PlainValidator(_no_spend)]
"""000, "Gastar para cambiar una tirada": "Los demás tipos no pueden declarar spend"."""


def distinct(values: Sequence[str], base: Loc, what: str, key: Loc = ()) -> Found:
    """A problem at each position (and `key` below it) whose value an earlier one holds."""
    seen: set[str] = set()
    found: Found = []
    for position, value in enumerate(values):
        if value in seen:
            found.append(((*base, position, *key), f"{what} '{value}' repeats"))
        seen.add(value)
    return found


LineError = tuple[Loc, str, str, object]
"""A validation error kept to be raised with others: location, type, message, input."""


def problems_of(error: ValidationError) -> list[LineError]:
    return [
        (tuple(item["loc"]), item["type"], item["msg"], item["input"]) for item in error.errors()
    ]


def under(base: Loc, found: Found) -> Found:
    return [((*base, *loc), message) for loc, message in found]


class Rung(RulesetModel):
    """A rung of `difficultyLadder`: a difficulty the GM may name with `difficulty=`."""

    label: PromptSafe80
