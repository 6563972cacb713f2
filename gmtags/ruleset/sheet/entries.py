"""002, "La ficha": sections, abilities, skills and saves (004: computed abilities)."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    Field,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gmtags.ruleset.base import PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.refs import (
    RulesetValueRef,
)
from gmtags.ruleset.sheet.common import HideWhen, Short, Untrained

# ---------------------------------------------------------------------------
# Sections, abilities, skills and saves


class Entry(RulesetModel):
    id: SheetId
    label: PromptSafe80


class Placed(Entry):
    section: SheetId | None = None
    hide_when: HideWhen | None = Field(default=None, alias="hideWhen")


class Section(Entry):
    """002, "La ficha": a heading in the editor, optionally with an `untrained` rule."""

    untrained: Untrained | None = None


class Ability(Entry):
    """A main score; with `value` (004, 1.156) a read-only sum of 1–8 references.

    A computed score is clamped to its min and max; no computed score may read
    another, not even through a derived value (checked by `validate`).
    """

    short: Short | None = None
    min: int
    max: int
    default: int
    section: SheetId | None = None
    value: Annotated[list[RulesetValueRef], Field(min_length=1, max_length=8)] | None = None

    @model_validator(mode="after")
    def _in_order(self) -> Ability:
        if not self.min <= self.default <= self.max:
            raise PydanticCustomError("ability_range", "an ability needs min ≤ default ≤ max")
        return self


class CheckEntry(Entry):
    """A skill or a save: the ability it rolls with, a `cap`, a section and an untrained rule.

    002, "Una habilidad o salvación puede llevar un cap": the check number is
    min(computed, cap); a cap may read live state but no skill or save modifier.
    """

    ability: SheetId | None = None
    cap: RulesetValueRef | None = None
    section: SheetId | None = None
    untrained: Untrained | None = None


Skill = CheckEntry
Save = CheckEntry


class BonusRange(RulesetModel):
    """The range of the free per-skill/save bonus (SCHEMA-NOTES §6, default -20..40)."""

    min: Annotated[int, Field(ge=-100)] = -20
    max: Annotated[int, Field(le=100)] = 40

    @model_validator(mode="after")
    def _in_order(self) -> BonusRange:
        if self.min > self.max:
            raise PydanticCustomError("bonus_range", "bonusRange needs min ≤ max")
        return self
