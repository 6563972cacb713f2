"""The `sheet` section whole, and the guided builder a sheet carries (002, "La ficha"; 004).

Its parts are `gmtags.ruleset.sheet`; the builder's model is `gmtags.ruleset.builder`,
which reads the catalogs, which read the sheet's parts: so the section whole stands
above all three. `builder` stays the JSON object the file holds, validated strictly
here (errors keep their `….builder.…` paths); `builder_model` is its typed view.
"""

from __future__ import annotations

from functools import cached_property
from typing import Annotated

from pydantic import Field, ValidationInfo, field_validator

from gmtags.ruleset.base import PromptSafe400, RulesetModel, SheetId
from gmtags.ruleset.builder import Builder, BuilderRead, parse_builder, read_builder
from gmtags.ruleset.sheet import (
    Ability,
    BonusRange,
    Derived,
    JsonObject,
    Live,
    Save,
    Section,
    SheetField,
    SheetList,
    Skill,
)

# ---------------------------------------------------------------------------
# Advancement and the sheet


class Advancement(RulesetModel):
    """The fields the GM may change for good with `op="advance"`.

    002, "Ficha de grupo…": number, text or longtext fields; `text` is one
    prompt-safe line of at most 400. 004, "Listas de avance más largas": up to 64.
    """

    fields: Annotated[list[SheetId], Field(max_length=64)]
    text: PromptSafe400 | None = None


BUILDER_APART = "builder_apart"
"""The validation context key with which a sheet leaves its `builder` unchecked: import reads
it apart (`WithBuilder.builder_parts`), so that a problem in it hides nothing else."""


class WithBuilder(RulesetModel):
    """A sheet with a guided builder (004): the character sheet's `builder`, and the party
    sheet's (002, "Creación compartida del grupo")."""

    builder: JsonObject | None = None

    @field_validator("builder")
    @classmethod
    def _builder_model(cls, builder: JsonObject | None, info: ValidationInfo) -> JsonObject | None:
        """Validate `builder` strictly (004); errors keep their `….builder.…` paths. Import
        reads it apart instead (context `BUILDER_APART`, `gmtags.ruleset.read`)."""
        if not (info.context or {}).get(BUILDER_APART):
            parse_builder(builder)
        return builder

    @cached_property
    def builder_parts(self) -> BuilderRead:
        """`builder` as import reads it (`gmtags.ruleset.builder.read_builder`): the parts that
        parsed, which the validation passes check, and every problem, each at its location
        below the builder."""
        return read_builder(self.builder)

    @cached_property
    def builder_model(self) -> Builder | None:
        """`builder` as its typed model, parsed once; `builder` stays the JSON the file holds.
        Raises `ValidationError` for a builder with problems (`parse_builder`)."""
        read = self.builder_parts
        return parse_builder(self.builder) if read.problems else read.builder


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
