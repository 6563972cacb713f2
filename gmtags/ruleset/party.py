"""The optional top-level `party`: one shared sheet per game (a crew, a ship, Story Points).

002, "Ficha de grupo: una banda, una nave o Story Points compartidos": `fields`
use the schema of `sheet.fields` and `pools` that of `sheet.live.pools`; at
least one field or pool; ids unique within the party sheet (they may match a
character's). A pool's max reads a constant or a number field of the party;
party formulas read only party values and character formulas never read the
party's. "Creación compartida del grupo" adds `lists` (up to 12), a guided
`builder` (creation-time: kept as JSON, validated like `sheet.builder`, typed as
`builder_model`) and `fromMembers`.
Cross-references are checked by `gmtags.ruleset.validate`.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from gmtags.ruleset.base import PromptSafe80, PromptSafe400, RulesetModel, SheetId
from gmtags.ruleset.character_sheet import Advancement, WithBuilder
from gmtags.ruleset.sheet import LivePool, SheetField, SheetList

if TYPE_CHECKING:
    pass

JsonObject = dict[str, Any]


class SummaryList(RulesetModel):
    """A list shown in a sheet summary: rows named by `nameColumn`, up to 3 more columns."""

    list: SheetId
    name_column: SheetId = Field(alias="nameColumn")
    columns: Annotated[builtins.list[SheetId], Field(min_length=1, max_length=3)] | None = None
    group_by: SheetId | None = Field(default=None, alias="groupBy")
    only_when: SheetId | None = Field(default=None, alias="onlyWhen")


class SheetSummary(RulesetModel):
    """The shape of `gm.sheetSummary`, which `party.summary` reuses (002).

    For the party, `fields` pick party fields, `derived` must be empty and
    `lists` may name party lists.
    """

    fields: Annotated[list[SheetId], Field(max_length=24)] = []
    derived: Annotated[list[SheetId], Field(max_length=24)] = []
    lists: Annotated[list[SummaryList], Field(max_length=8)] = []


class FromMember(RulesetModel):
    """A party number field read from the members: `{field, count: true}` or `{field, sum}`.

    002, "Creación compartida del grupo": `count` is how many characters there
    are; `sum` names a character number field whose values are added up.
    """

    field: SheetId
    count: Literal[True] | None = None
    sum: SheetId | None = None

    @model_validator(mode="after")
    def _count_or_sum(self) -> FromMember:
        if (self.count is None) == (self.sum is None):
            raise PydanticCustomError(
                "from_members", "fromMembers takes exactly one of count: true or sum"
            )
        return self


class Party(WithBuilder):
    """The shared party sheet."""

    label: PromptSafe80
    fields: Annotated[list[SheetField], Field(max_length=240)] = []
    pools: Annotated[list[LivePool], Field(max_length=60)] = []
    advancement: Advancement | None = None
    text: PromptSafe400 | None = None
    summary: SheetSummary | None = None
    lists: Annotated[list[SheetList], Field(max_length=12)] = []
    from_members: Annotated[list[FromMember], Field(max_length=8)] = Field(
        default=[], alias="fromMembers"
    )

    @model_validator(mode="after")
    def _has_something(self) -> Party:
        if not self.fields and not self.pools:
            raise PydanticCustomError("party_empty", "a party sheet needs a field or a pool")
        return self
