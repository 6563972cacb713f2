"""The `gm` section: the text the Game Master is given (002, "Texto del Game Master").

Strict like the rest of the file (SCHEMA-NOTES §8): `checkGuidance` (it
replaces the built-in paragraph on checks; the reference engine requires it,
but 002 only says it replaces the built-in one, so gmtags accepts its absence
and uses the built-in paragraph), `sheetGuidance` and
`worldGuidance` are prompt-safe lines of at most 1,500 characters;
`sheetSummary` picks fields, derived values and list rows for every sheet
block (its references are checked by `gmtags.ruleset.validate`); `opposition`
(002, 1.774) says who plays the other side of a fight.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gmtags.ruleset.base import PromptSafe1500, RulesetModel
from gmtags.ruleset.party import SheetSummary


class GmText(RulesetModel):
    """`gm`: guidance for the Game Master, the sheet summary and who plays the opposition."""

    check_guidance: PromptSafe1500 | None = Field(default=None, alias="checkGuidance")
    sheet_guidance: PromptSafe1500 | None = Field(default=None, alias="sheetGuidance")
    world_guidance: PromptSafe1500 | None = Field(default=None, alias="worldGuidance")
    sheet_summary: SheetSummary = Field(default=SheetSummary(), alias="sheetSummary")
    opposition: Literal["game-master", "engine"] | None = None
