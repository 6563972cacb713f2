"""The ruleset file's top level (SCHEMA-NOTES §2, plus what the seeds add).

The top level, `license`, `coverage` and `clocks` are validated in full here.
The other sections are kept as the JSON objects they are (never dropped) and
validated by their own modules as they land; which of them gmtags executes is
said in the README.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from gmtags.ruleset.base import (
    PromptSafe80,
    PromptSafe160,
    PromptSafe400,
    PromptSafe16000,
    RulesetId,
    RulesetModel,
)
from gmtags.ruleset.clocks import ClocksConfig

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
    sheet: JsonObject
    rests: Annotated[list[JsonObject], Field(max_length=12)] = []
    gm: JsonObject
    catalogs: Annotated[list[JsonObject], Field(max_length=12)] | None = None
    items: JsonObject | None = None
    battle: JsonObject | None = None
    combat: JsonObject | None = None
    layers: Annotated[list[JsonObject], Field(max_length=12)] | None = None
    clocks: ClocksConfig | None = None
    party: JsonObject | None = None
    gm_reference: PromptSafe16000 | None = Field(default=None, alias="gmReference")

    @property
    def resolution_kind(self) -> str | None:
        """`resolution.kind` as written (dice-sum, dice-pool, …)."""
        kind = self.resolution.get("kind")
        return kind if isinstance(kind, str) else None
