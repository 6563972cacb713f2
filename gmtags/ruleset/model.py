"""The ruleset file's top level (SCHEMA-NOTES §2, plus what the seeds add).

The top level, `license`, `coverage` and `clocks` are validated in full here;
`sheet`, `rests` and `party` by their own modules (`sheet.py`, `rests.py`,
`party.py`), the whole `resolution` by its kind's model (`resolution.py`) and
`catalogs` by `catalogs.py`, while `resolution` and `catalogs` themselves stay
the JSON the file holds.
The other sections are kept as the JSON objects they are (never dropped) and
validated by their own modules as they land; which of them gmtags executes is
said in the README.
"""

from __future__ import annotations

from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, field_validator

from gmtags.ruleset.base import (
    PromptSafe80,
    PromptSafe160,
    PromptSafe400,
    PromptSafe16000,
    RulesetId,
    RulesetModel,
)
from gmtags.ruleset.catalogs import Catalog, parse_catalogs
from gmtags.ruleset.clocks import ClocksConfig
from gmtags.ruleset.gm import GmText
from gmtags.ruleset.party import Party
from gmtags.ruleset.resolution import Resolution, parse_resolution
from gmtags.ruleset.resolution.shared import ResolutionCommon
from gmtags.ruleset.rests import Rest
from gmtags.ruleset.sheet import Sheet

JsonObject = dict[str, Any]


class License(RulesetModel):
    """`license`: an SPDX id and an attribution, both optional."""

    spdx: Annotated[str, StringConstraints(max_length=64)] | None = None
    attribution: Annotated[str, StringConstraints(max_length=4000)] | None = None


class Coverage(RulesetModel):
    """`coverage`: what the ruleset covers, for the GM and the UI."""

    checks: bool = False
    saves: bool = False
    sheet: bool = False
    resources: bool = False
    rests: bool = False
    combat: bool = False
    summary: PromptSafe400


class Ruleset(RulesetModel):
    """A whole ruleset file. Build it with `load_ruleset`, which collects every error."""

    schema_version: Literal[1] = Field(alias="schemaVersion")
    id: RulesetId
    version: Annotated[int, Field(ge=1)]
    name: PromptSafe80
    edition: PromptSafe160 | None = None
    license: License | None = None
    coverage: Coverage
    resolution: JsonObject
    sheet: Sheet
    rests: Annotated[list[Rest], Field(max_length=12)] = []
    gm: JsonObject
    catalogs: Annotated[list[JsonObject], Field(max_length=12)] | None = None
    items: JsonObject | None = None
    battle: JsonObject | None = None
    combat: JsonObject | None = None
    layers: Annotated[list[JsonObject], Field(max_length=12)] | None = None
    clocks: ClocksConfig | None = None
    party: Party | None = None
    gm_reference: PromptSafe16000 | None = Field(default=None, alias="gmReference")

    @field_validator("gm")
    @classmethod
    def _gm_text(cls, gm: JsonObject) -> JsonObject:
        """Validate `gm` strictly (SCHEMA-NOTES §8); errors keep their `gm.…` paths."""
        GmText.model_validate(gm)
        return gm

    @cached_property
    def gm_text(self) -> GmText:
        """`gm` as its typed model; `gm` itself stays the JSON object it is."""
        return GmText.model_validate(self.gm)

    @field_validator("catalogs")
    @classmethod
    def _catalog_models(cls, catalogs: list[JsonObject] | None) -> list[JsonObject] | None:
        """Validate each catalog strictly (SCHEMA-NOTES §9, 004); errors keep `catalogs.…` paths."""
        parse_catalogs(catalogs)
        return catalogs

    @cached_property
    def catalog_models(self) -> tuple[Catalog, ...]:
        """`catalogs` as typed models, parsed once; `catalogs` stays the JSON the file holds."""
        return parse_catalogs(self.catalogs)

    @field_validator("resolution")
    @classmethod
    def _resolution_rules(cls, resolution: JsonObject) -> JsonObject:
        """Validate the whole resolution by its kind (000); errors keep `resolution.…` paths."""
        parse_resolution(resolution)
        return resolution

    @cached_property
    def resolution_rules(self) -> Resolution:
        """The whole `resolution` as its kind's typed model (`DicePool`, `DiceSum`, …)."""
        return parse_resolution(self.resolution)

    @cached_property
    def resolution_common(self) -> ResolutionCommon:
        """The keys of `resolution` every kind shares (`abilityModifier`, `proficiencyTiers`,
        `proficiency`, `penaltyFrom`, `adjust`), as a model; `resolution` stays the raw object.
        """
        return ResolutionCommon.model_validate(self.resolution)

    @property
    def resolution_kind(self) -> str | None:
        """`resolution.kind` as written (dice-sum, dice-pool, …)."""
        kind = self.resolution.get("kind")
        return kind if isinstance(kind, str) else None
