"""The ruleset file's top level (SCHEMA-NOTES §2, plus what the seeds add).

The top level, `license`, `coverage` and `clocks` are validated in full here;
`sheet`, `rests` and `party` by their own modules (`sheet/`, `rests.py`,
`party.py`), the whole `resolution` by its kind's model (`resolution/`),
`catalogs` by `catalogs.py`, `layers` by `layers.py`, `items` by `items.py`
and `combat` and `battle` by `combat.py`, while `resolution`, `catalogs`,
`layers`, `items`, `combat` and `battle` themselves stay the JSON the file
holds (their typed views are the `…_model(s)` properties, parsed once).
A ruleset derived for a game's active layers (`gmtags.ruleset.played.effective_ruleset`) is a
`Ruleset` too, whose `layers_played` name them.
Which sections gmtags executes in play is said in the README.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Annotated, Any, Literal

from pydantic import Field, PrivateAttr, StringConstraints, field_validator

from gmtags.errors import Problem
from gmtags.ruleset.base import (
    PromptSafe80,
    PromptSafe160,
    PromptSafe400,
    PromptSafe16000,
    RulesetId,
    RulesetModel,
)
from gmtags.ruleset.catalogs import Catalog, CatalogEntry, parse_catalogs
from gmtags.ruleset.character_sheet import Sheet
from gmtags.ruleset.clocks import ClocksConfig
from gmtags.ruleset.combat import Battle, Combat, parse_battle, parse_combat
from gmtags.ruleset.gm import GmText
from gmtags.ruleset.items import Items, parse_items
from gmtags.ruleset.layers import MAX_LAYERS, Layer, parse_layers
from gmtags.ruleset.party import Party
from gmtags.ruleset.resolution import Resolution, parse_resolution
from gmtags.ruleset.resolution.shared import ResolutionCommon
from gmtags.ruleset.rests import Rest

JsonObject = dict[str, Any]


@dataclass(frozen=True, slots=True, eq=False)
class Played:
    """What an effective ruleset was derived from: its base, the layers applied, what they hide.

    Compared by identity: each is made once per base and set of layers (and comparing its
    base would compare the base's derived rulesets in turn).
    """

    base: Ruleset
    layers: tuple[Layer, ...]
    hidden: Mapping[str, CatalogEntry]


@dataclass(frozen=True, slots=True)
class BorrowNote:
    """One thing a borrowed catalog left out: at `path` (`catalogs.N`), why."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class Borrowed:
    """What `gmtags.ruleset.borrow.borrow_catalogs` read: each borrowing catalog by id, the
    notes and the refusals."""

    catalogs: Mapping[str, Catalog] = field(default_factory=lambda: MappingProxyType({}))
    notes: tuple[BorrowNote, ...] = ()
    problems: tuple[Problem, ...] = ()


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
    layers: Annotated[list[JsonObject], Field(max_length=MAX_LAYERS)] | None = None
    clocks: ClocksConfig | None = None
    party: Party | None = None
    gm_reference: PromptSafe16000 | None = Field(default=None, alias="gmReference")

    _played: Played | None = PrivateAttr(default=None)
    _borrowed: Borrowed | None = PrivateAttr(default=None)

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
        """`catalogs` as typed models, parsed once; `catalogs` stays the JSON the file holds.

        A borrowing catalog (004, "Catálogos prestados") is the one `load_ruleset` read
        from its lender (`gmtags.ruleset.borrow`), without the entries the played layers
        hide; before that (a ruleset built without `load_ruleset`, or while it validates)
        it holds only the entries beside its `from`.
        """
        parsed = parse_catalogs(self.catalogs)
        if self._borrowed is None:
            return parsed
        hidden = self.hidden_entries
        models: list[Catalog] = []
        for catalog in parsed:
            read = self._borrowed.catalogs.get(catalog.id) if catalog.from_ else None
            if read is not None:
                kept = [e for e in read.entries or () if f"{catalog.id}/{e.id}" not in hidden]
                catalog = read.model_copy(update={"entries": kept})
            models.append(catalog)
        return tuple(models)

    @property
    def borrow_notes(self) -> tuple[BorrowNote, ...]:
        """What the borrowed catalogs left out, and lenders not found (`gmtags.ruleset.borrow`)."""
        return () if self._borrowed is None else self._borrowed.notes

    def lend(self, borrowed: Borrowed) -> None:
        """Keep what `load_ruleset` read for the borrowing catalogs (once, before any play):
        `catalog_models` is read again from it."""
        self._borrowed = borrowed
        self.__dict__.pop("catalog_models", None)

    @field_validator("items")
    @classmethod
    def _items_model(cls, items: JsonObject | None) -> JsonObject | None:
        """Validate `items` strictly (SCHEMA-NOTES §10); errors keep their `items.…` paths."""
        parse_items(items)
        return items

    @cached_property
    def items_model(self) -> Items | None:
        """`items` as its typed model, parsed once; `items` stays the JSON the file holds."""
        return parse_items(self.items)

    @field_validator("combat")
    @classmethod
    def _combat_model(cls, combat: JsonObject | None) -> JsonObject | None:
        """Validate `combat` strictly (SCHEMA-NOTES §11); errors keep their `combat.…` paths."""
        parse_combat(combat)
        return combat

    @cached_property
    def combat_model(self) -> Combat | None:
        """`combat` as its typed model, parsed once; `combat` stays the JSON the file holds."""
        return parse_combat(self.combat)

    @field_validator("battle")
    @classmethod
    def _battle_model(cls, battle: JsonObject | None) -> JsonObject | None:
        """Validate `battle` strictly (SCHEMA-NOTES §11); errors keep their `battle.…` paths."""
        parse_battle(battle)
        return battle

    @cached_property
    def battle_model(self) -> Battle | None:
        """`battle` as its typed model, parsed once; `battle` stays the JSON the file holds."""
        return parse_battle(self.battle)

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

    # -- layers (SCHEMA-NOTES §12, SPEC §4; `gmtags.ruleset.layers`) ---------

    @field_validator("layers")
    @classmethod
    def _layer_models(cls, layers: list[JsonObject] | None) -> list[JsonObject] | None:
        """Validate each layer strictly (SCHEMA-NOTES §12); errors keep their `layers.…` paths."""
        parse_layers(layers)
        return layers

    @cached_property
    def layer_models(self) -> tuple[Layer, ...]:
        """`layers` as typed models, parsed once; `layers` stays the JSON the file holds."""
        return parse_layers(self.layers)

    @property
    def base_ruleset(self) -> Ruleset:
        """The file's ruleset this one was derived from by its layers (itself for a file's)."""
        return self if self._played is None else self._played.base

    @property
    def layers_played(self) -> tuple[Layer, ...]:
        """The layers this ruleset plays, in the file's order: () for the file's own ruleset."""
        return () if self._played is None else self._played.layers

    @property
    def layer_guidance(self) -> tuple[str, ...]:
        """Each played layer's `gm.guidance`, in order: the text after the base check paragraph."""
        return tuple(text for layer in self.layers_played if (text := layer.guidance))

    @property
    def hidden_entries(self) -> Mapping[str, CatalogEntry]:
        """The catalog entries the played layers hide, by `catalog/entry`: left out of
        `catalogs`, so nothing offers them, and still readable for what a pick of one gave
        (004: "sigue contando por lo que dio")."""
        return MappingProxyType({}) if self._played is None else self._played.hidden

    @cached_property
    def layered_cache(self) -> dict[frozenset[str], Ruleset]:
        """The rulesets `effective_ruleset` derived from this one, by set of layer ids.

        Kept like the other cached views (never compared: two equal files stay equal
        whatever was derived from either).
        """
        return {}

    def played_with(self, played: Played, changes: Mapping[str, Any]) -> Ruleset:
        """This ruleset with `changes` to its sections (each validated by the caller,
        `gmtags.ruleset.played.effective_ruleset`) and `played` recorded.

        A new object built from the sections, not a copy: nothing parsed or cached
        from this one (`resolution_rules`, `catalog_models`, …) is carried over.
        """
        values = {name: getattr(self, name) for name in type(self).model_fields}
        values.update(changes)
        derived = type(self).model_construct(_fields_set=self.model_fields_set, **values)
        derived._played = played
        derived._borrowed = self._borrowed
        return derived

    def with_sheet(self, sheet: Sheet) -> Ruleset:
        """This ruleset with `sheet` as its character sheet (the party builder's view,
        `gmtags.builder.party`): a new object, nothing cached from this one carried over."""
        values = {name: getattr(self, name) for name in type(self).model_fields}
        values["sheet"] = sheet
        derived = type(self).model_construct(_fields_set=self.model_fields_set, **values)
        derived._played = self._played
        derived._borrowed = self._borrowed
        return derived
