"""The `sheet` section: what a character sheet holds and what changes in play.

002, "La ficha": sections, abilities, skills and saves, fields, derived values,
lists and live state (pools, tracks, text, conditions, states); 004 adds the
play-time parts of the character builder (computed abilities, counted and
filtered list sums, computed list columns, `startFrom`, row checks, list
`contextual`, the longer `advancement` list and the raised limits). The guided
`builder` itself is creation-time only: it is kept as the JSON object it is,
validated strictly by `gmtags.ruleset.builder` (its typed view is `builder_model`).

Shapes are checked here (every model is strict: unknown keys are refused);
everything that needs to look across the sheet (ids that exist, live reads,
derived order, wound-track rules) is checked by `gmtags.ruleset.validate`, so
each problem is reported with its JSON path and all of them are reported.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Annotated

from pydantic import Field, field_validator

from gmtags.ruleset.base import PromptSafe400, RulesetModel, SheetId
from gmtags.ruleset.sheet.common import (
    Dice40,
    EnumValue,
    HideWhen,
    IntOrRef,
    JsonObject,
    KindLabel,
    Short,
    StateValue,
    Untrained,
    UntrainedBy,
    UntrainedWord,
    tagged,
    unique,
)
from gmtags.ruleset.sheet.derived import (
    Derived,
    DerivedValue,
    EnumTableDerived,
    EnumTableFrom,
    MaxDerived,
    MinDerived,
    MultiplyDerived,
    ScaleDerived,
    StepTableDerived,
    SumDerived,
)
from gmtags.ruleset.sheet.entries import (
    Ability,
    BonusRange,
    CheckEntry,
    Entry,
    Placed,
    Save,
    Section,
    Skill,
)
from gmtags.ruleset.sheet.fields import (
    BooleanColumn,
    BooleanField,
    Column,
    ColumnRoll,
    DiceColumn,
    DiceField,
    EnumColumn,
    EnumField,
    FieldLike,
    FieldValue,
    LongTextColumn,
    LongTextField,
    NumberColumn,
    NumberField,
    RollColumn,
    SheetField,
    TextColumn,
    TextField,
)
from gmtags.ruleset.sheet.lists import (
    ContextualCheck,
    ContextualCost,
    ContextualModifiers,
    EntryContextual,
    ListCheck,
    ListContextual,
    ListPools,
    SheetList,
)
from gmtags.ruleset.sheet.live import (
    Boxes,
    BoxPenalty,
    BoxTable,
    Condition,
    Live,
    LivePool,
    LiveState,
    LiveText,
    LiveTrack,
    TrackExtra,
    WoundKind,
    WoundLevel,
)

if TYPE_CHECKING:
    from gmtags.ruleset.builder import Builder

# ---------------------------------------------------------------------------
# Advancement and the sheet


class Advancement(RulesetModel):
    """The fields the GM may change for good with `op="advance"`.

    002, "Ficha de grupo…": number, text or longtext fields; `text` is one
    prompt-safe line of at most 400. 004, "Listas de avance más largas": up to 64.
    """

    fields: Annotated[list[SheetId], Field(max_length=64)]
    text: PromptSafe400 | None = None


class WithBuilder(RulesetModel):
    """A sheet with a guided builder (004): the character sheet's `builder`, and the party
    sheet's (002, "Creación compartida del grupo")."""

    builder: JsonObject | None = None

    @field_validator("builder")
    @classmethod
    def _builder_model(cls, builder: JsonObject | None) -> JsonObject | None:
        """Validate `builder` strictly (004); errors keep their `….builder.…` paths."""
        from gmtags.ruleset.builder import parse_builder  # the builder reads the catalogs' models

        parse_builder(builder)
        return builder

    @cached_property
    def builder_model(self) -> Builder | None:
        """`builder` as its typed model, parsed once; `builder` stays the JSON the file holds."""
        from gmtags.ruleset.builder import parse_builder

        return parse_builder(self.builder)


class Sheet(WithBuilder):
    """The `sheet` section (strict; limits as the seeds raise them)."""

    version: Annotated[int, Field(ge=1)]
    sections: Annotated[list[Section], Field(max_length=20)] = []
    abilities: Annotated[list[Ability], Field(max_length=20)] = []
    skills: Annotated[list[Skill], Field(max_length=120)] = []
    saves: Annotated[list[Save], Field(max_length=40)] = []
    skill_tiers: Annotated[list[SheetId], Field(min_length=1, max_length=12)] | None = Field(
        default=None, alias="skillTiers"
    )
    save_tiers: Annotated[list[SheetId], Field(min_length=1, max_length=12)] | None = Field(
        default=None, alias="saveTiers"
    )
    bonus_range: BonusRange = Field(default=BonusRange(), alias="bonusRange")
    fields: Annotated[list[SheetField], Field(max_length=240)] = []
    derived: Annotated[list[Derived], Field(max_length=800)] = []
    lists: Annotated[list[SheetList], Field(max_length=20)] = []
    live: Live = Live()
    advancement: Advancement | None = None


__all__ = [
    "Ability",
    "Advancement",
    "BonusRange",
    "BooleanColumn",
    "BooleanField",
    "BoxPenalty",
    "BoxTable",
    "Boxes",
    "CheckEntry",
    "Column",
    "ColumnRoll",
    "Condition",
    "ContextualCheck",
    "ContextualCost",
    "ContextualModifiers",
    "Derived",
    "DerivedValue",
    "Dice40",
    "DiceColumn",
    "DiceField",
    "Entry",
    "EntryContextual",
    "EnumColumn",
    "EnumField",
    "EnumTableDerived",
    "EnumTableFrom",
    "EnumValue",
    "FieldLike",
    "FieldValue",
    "HideWhen",
    "IntOrRef",
    "JsonObject",
    "KindLabel",
    "ListCheck",
    "ListContextual",
    "ListPools",
    "Live",
    "LivePool",
    "LiveState",
    "LiveText",
    "LiveTrack",
    "LongTextColumn",
    "LongTextField",
    "MaxDerived",
    "MinDerived",
    "MultiplyDerived",
    "NumberColumn",
    "NumberField",
    "Placed",
    "RollColumn",
    "Save",
    "ScaleDerived",
    "Section",
    "Sheet",
    "SheetField",
    "SheetList",
    "Short",
    "Skill",
    "StateValue",
    "StepTableDerived",
    "SumDerived",
    "TextColumn",
    "TextField",
    "TrackExtra",
    "Untrained",
    "UntrainedBy",
    "UntrainedWord",
    "WithBuilder",
    "WoundKind",
    "WoundLevel",
    "tagged",
    "unique",
]
