"""002 and 004: lists, their pools, row checks and `contextual` rows."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    Field,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gmtags.ruleset.base import PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.sheet.entries import Placed
from gmtags.ruleset.sheet.fields import Column, FieldLike

# ---------------------------------------------------------------------------
# Lists


class ListPools(RulesetModel):
    """A list whose rows are live pools, keyed `<listId>:<lowercased trimmed name>`."""

    name_column: SheetId = Field(alias="nameColumn")
    max_column: SheetId = Field(alias="maxColumn")
    recharge_column: SheetId | None = Field(default=None, alias="rechargeColumn")


class ContextualCheck(RulesetModel):
    """004, "Una lista puede declarar contextual": the pool effect each applied row gives.

    `cancel: false` (1.214) stops low faces cancelling; `best: true` (1.217)
    rolls the character's best skill rating. Every effect but `best` needs a
    dice pool.
    """

    dice: Annotated[int, Field(ge=1, le=10)] | None = None
    successes: Annotated[int, Field(ge=1, le=10)] | None = None
    double: Annotated[int, Field(ge=2, le=1000)] | None = None
    explode: Annotated[int, Field(ge=2, le=1000)] | None = None
    cancel: Literal[False] | None = None
    best: Literal[True] | None = None

    @model_validator(mode="after")
    def _does_something(self) -> ContextualCheck:
        if all(getattr(self, key) is None for key in type(self).model_fields):
            raise PydanticCustomError("contextual_check", "a contextual check must do something")
        return self

    @property
    def pool_effects(self) -> list[str]:
        """The keys given that change a dice pool (all but `best`)."""
        return [
            key
            for key in ("dice", "successes", "double", "explode", "cancel")
            if getattr(self, key) is not None
        ]


class ContextualCost(RulesetModel):
    """What applying a row costs: `{pool, amount}` or (004, 1.218) `{track, by}`."""

    pool: SheetId | None = None
    amount: Annotated[int, Field(ge=1, le=100)] | None = None
    track: SheetId | None = None
    by: Annotated[int, Field(ge=1, le=100)] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> ContextualCost:
        pool = self.pool is not None and self.amount is not None
        track = self.track is not None and self.by is not None
        given = sum(value is not None for value in (self.pool, self.amount, self.track, self.by))
        if given != 2 or pool == track:
            raise PydanticCustomError("contextual_cost", "a cost is {pool, amount} or {track, by}")
        return self


class ListContextual(RulesetModel):
    """004: rows the Game Master names (`apply=`) add a bonus, dice or a pool effect.

    `name` is the column a row is named by; `skill` the column naming the skill
    it applies to (or, with `abilities: true`, an ability); `bonus` a number
    column; `dice` a dice column; `to: "saves"` applies rows to saves instead.
    """

    name: SheetId
    skill: SheetId | None = None
    bonus: SheetId | None = None
    dice: SheetId | None = None
    to: Literal["checks", "saves"] | None = None
    check: ContextualCheck | None = None
    abilities: bool | None = None
    cost: Annotated[list[ContextualCost], Field(min_length=1, max_length=4)] | None = None


class ContextualModifiers(RulesetModel):
    """004, "mechanics.contextual": the signed modifier an applied entry adds to checks or saves."""

    checks: Annotated[int, Field(ge=-20, le=20)] | None = None
    saves: Annotated[int, Field(ge=-20, le=20)] | None = None


class EntryContextual(RulesetModel):
    """004, "Una entrada de catálogo puede llevar mechanics.contextual": a picked entry on a check.

    `modifiers` adds to checks or saves; `skills` and `saves` (ids) restrict
    the entry to those checks (with neither it applies to any check or save);
    `check` is a pool effect as on a list; `cost` is paid once on the check it
    applies to. `effects` (own-checks-advantage and the other named check and
    save effects) is kept as written and not executed: the seeds do not list
    the names it takes.
    """

    effects: Annotated[list[PromptSafe80], Field(max_length=8)] | None = None
    modifiers: ContextualModifiers | None = None
    skills: Annotated[list[SheetId], Field(min_length=1, max_length=24)] | None = None
    saves: Annotated[list[SheetId], Field(min_length=1, max_length=24)] | None = None
    check: ContextualCheck | None = None
    cost: Annotated[list[ContextualCost], Field(min_length=1, max_length=4)] | None = None


class ListCheck(RulesetModel):
    """004, "Filas que son pruebas por sí mismas": each row is a check called by name.

    `name` is the text column naming the row and `rating` the number column
    that is its value; `ability` adds like a skill's ability; `label` tells two
    checks of one list apart; `stance` (1.212) names a resolution stance.
    """

    id: SheetId
    name: SheetId
    rating: SheetId
    ability: SheetId | None = None
    label: PromptSafe80 | None = None
    stance: SheetId | None = None


class SheetList(Placed):
    """002, "La ficha": a table with its own columns (up to 24), such as gear or spells.

    `maxItems` defaults to 500, the most rows a stored sheet keeps (the seed's
    party list omits it). `pools` turns each row into a live pool.
    """

    max_items: Annotated[int, Field(ge=1, le=500)] = Field(default=500, alias="maxItems")
    columns: Annotated[list[Column], Field(min_length=1, max_length=24)]
    pools: ListPools | None = None
    contextual: ListContextual | None = None
    checks: Annotated[list[ListCheck], Field(min_length=1, max_length=4)] | None = None

    def column(self, column_id: str) -> FieldLike | None:
        """The column with this id, or None."""
        return next((c for c in self.columns if c.id == column_id), None)
