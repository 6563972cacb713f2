"""000, "Pruebas que tiran a su manera": overrides, the checks they name, what they change."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Self

from pydantic import (
    AfterValidator,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from pydantic_core import ErrorDetails, InitErrorDetails, PydanticCustomError

from gmtags.ruleset.base import PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.resolution.common import (
    Found,
    LineError,
    Loc,
    PromptSafe200,
    detail,
    distinct,
    problems_of,
    raise_found,
)

LOCKED_KEYS: frozenset[str] = frozenset(
    {
        "kind",
        "abilityModifier",
        "proficiency",
        "proficiencyTiers",
        "penaltyFrom",
        "spend",
        "adjust",
        "difficultyLadder",
        "overrides",
    }
)
"""000, "Pruebas que tiran a su manera": keys an override's `set` may not change.

The seed names kind, the sheet's sums and the ladder; `overrides` is added
because an override holding overrides would mean nothing.
"""


def _no_locked_keys(value: dict[str, Any]) -> dict[str, Any]:
    locked = [key for key in value if key in LOCKED_KEYS]
    if locked:
        raise ValidationError.from_exception_data(
            "set",
            [
                detail(
                    (key,),
                    "override_locked",
                    f"an override cannot change {key}: only the kind's own rolling keys",
                    value[key],
                )
                for key in locked
            ],
        )
    return value


class Override(RulesetModel):
    """000, "Pruebas que tiran a su manera": checks that roll with other resolution keys.

    It names `skills`, `saves` or `abilities` (one or more of the three), a
    `label`, optional `text` for the GM and `when` (a value of the roller's
    sheet: the override applies only when it is not 0). `set` replaces
    resolution keys of the ruleset's own kind for those checks; `null`
    deletes one. The kind, the sheet's sums and the ladder cannot change
    (`LOCKED_KEYS`; a symbol pool also locks `symbols` and `dice`).
    """

    id: SheetId
    label: PromptSafe80
    text: PromptSafe200 | None = None
    skills: Annotated[list[SheetId], Field(min_length=1, max_length=120)] | None = None
    saves: Annotated[list[SheetId], Field(min_length=1, max_length=40)] | None = None
    abilities: Annotated[list[SheetId], Field(min_length=1, max_length=20)] | None = None
    when: RulesetValueRef | None = None
    set_: Annotated[dict[str, Any], Field(min_length=1), AfterValidator(_no_locked_keys)] = Field(
        alias="set"
    )

    @model_validator(mode="after")
    def _names_checks(self) -> Self:
        if not self.checks():
            raise PydanticCustomError(
                "override_checks", "an override names skills, saves or abilities"
            )
        found: Found = []
        for key in ("skills", "saves", "abilities"):
            found += distinct(getattr(self, key) or [], (key,), CHECK_WORDS[key])
        raise_found(found, "Override")
        return self

    def checks(self) -> list[tuple[str, int, str]]:
        """The checks it names: (`skills`/`saves`/`abilities`, position, id)."""
        return [
            (key, position, name)
            for key in ("skills", "saves", "abilities")
            for position, name in enumerate(getattr(self, key) or [])
        ]


CHECK_WORDS = {"skills": "skill", "saves": "save", "abilities": "ability"}
"""An override's lists of checks, each with the word for one of them."""


def apply_override(
    resolution: Mapping[str, Any], changes: Mapping[str, Any], locked: frozenset[str]
) -> dict[str, Any]:
    """The resolution object an override's `set` creates (000, "Pruebas que tiran a su manera").

    Each key of `set` replaces the ruleset's own, whole; `null` deletes it.
    Locked keys are left as they are (they are refused on their own), and the
    result holds no overrides.
    """
    merged = {key: value for key, value in resolution.items() if key != "overrides"}
    for key, value in changes.items():
        if key in locked:
            continue
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


def override_error(index: int, changes: Mapping[str, Any], error: ErrorDetails) -> InitErrorDetails:
    """Where a problem of the resolution an override creates is reported: under its `set`."""
    loc, message = tuple(error["loc"]), error["msg"]
    base: Loc = ("overrides", index, "set")
    top = loc[0] if loc else None
    if isinstance(top, str) and top in changes:
        if changes[top] is None:
            message = f"deleting {top} leaves a resolution that is invalid: {message}"
            loc = (top,)
        return detail((*base, *loc), error["type"], message, error["input"])
    where = ".".join(str(part) for part in loc) or "the resolution"
    return detail(base, error["type"], f"with this override, {where}: {message}", changes)


_OVERRIDES: TypeAdapter[list[Override]] = TypeAdapter(
    Annotated[list[Override], Field(max_length=16)]
)


def parse_overrides(raw: Any) -> tuple[list[tuple[int, Override]], list[LineError]]:
    """`overrides`, each validated on its own: the valid ones with their positions, and problems.

    000, "Pruebas que tiran a su manera"; at most 16 (the seeds give no number).
    """
    try:
        _OVERRIDES.validate_python(raw)
    except ValidationError as error:
        problems = [
            (("overrides", *loc), kind, text, value)
            for loc, kind, text, value in problems_of(error)
        ]
    else:
        problems = []
    valid: list[tuple[int, Override]] = []
    for index, item in enumerate(raw if isinstance(raw, list) else []):
        try:
            valid.append((index, Override.model_validate(item)))
        except ValidationError:
            continue
    return valid, problems
