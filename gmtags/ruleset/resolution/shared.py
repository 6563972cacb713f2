"""The `resolution` keys every resolution kind shares, as the sheet's numbers read them.

000, "Tipos de resolución": every kind reads the same sheet and shares
`abilityModifier`, `proficiencyTiers` and `proficiency`; 002 adds `penaltyFrom`
("La penalización de las tiradas") and `adjust` ("Modificadores fuera de la
ficha"). The kind-specific keys (`dice`, `pool`, `target`, …) stay in the raw
`Ruleset.resolution` object and are let through here (`extra="allow"`); each
kind's strict model in `gmtags.ruleset.resolution` extends `SharedKeys` and validates them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from gmtags.ruleset.base import PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.refs import Number, Rounding, RulesetValueRef, StepTable, number_between


class AbilityModifier(RulesetModel):
    """How a score becomes a number: `identity`, 5e's `floorHalfMinusTen`, or a `stepTable`.

    000, "Tipos de resolución": `stepTable` takes thresholds `[[score, number], …]`,
    and only that op takes a `table`.
    """

    op: Literal["identity", "floorHalfMinusTen", "stepTable"]
    table: StepTable | None = None

    @model_validator(mode="after")
    def _table_with_step_table(self) -> AbilityModifier:
        if (self.op == "stepTable") != (self.table is not None):
            raise PydanticCustomError(
                "ability_modifier_table",
                "abilityModifier takes a table exactly when op is stepTable",
            )
        return self


class Proficiency(RulesetModel):
    """`proficiency`: where the proficiency bonus a multiplying tier reads comes from.

    000: `"proficiency": { "bonus": { "derived": "proficiency_bonus" } }`. The
    bonus may read neither live state nor a skill or save modifier (002; checked
    on import by `gmtags.ruleset.validate`).
    """

    bonus: RulesetValueRef


class ProficiencyTier(RulesetModel):
    """One training tier; the first is the untrained default (000, SCHEMA-NOTES §5).

    Trained bonus = round(multiplier × proficiency bonus) + flat.
    """

    id: SheetId
    label: PromptSafe80
    multiplier: Annotated[Number, number_between(0, 10)] = 0
    round: Rounding = "down"
    flat: Annotated[int, Field(ge=-50, le=50)] = 0


class Adjust(RulesetModel):
    """002, "Modificadores fuera de la ficha": a sheet value added to checks.

    Without `abilities` it applies to every check; with them, only to checks
    rolled with one of those abilities. It may read live state.
    """

    value: RulesetValueRef
    abilities: Annotated[list[SheetId], Field(min_length=1, max_length=12)] | None = None


ResolutionKind = Literal["dice-sum", "dice-pool", "dice-highest", "roll-against", "symbol-pool"]
"""000, "Tipos de resolución": the five kinds a ruleset can resolve checks with."""


class SharedKeys(RulesetModel):
    """The keys every kind shares, strict: each kind's model in `resolution.py` extends it."""

    ability_modifier: AbilityModifier = Field(alias="abilityModifier")
    proficiency: Proficiency | None = None
    proficiency_tiers: Annotated[list[ProficiencyTier], Field(min_length=1, max_length=12)] = Field(
        alias="proficiencyTiers"
    )
    penalty_from: SheetId | None = Field(default=None, alias="penaltyFrom")
    adjust: Annotated[list[Adjust], Field(max_length=8)] = []


class ResolutionCommon(SharedKeys):
    """The shared part of `resolution`; the kind's own keys are kept and not read here."""

    model_config = ConfigDict(extra="allow")

    kind: ResolutionKind
