"""The `items` section: the words a ruleset's items are written in, as typed models.

SCHEMA-NOTES §10 is the authority: `categories`, `rarities`, `tags`, `stats`,
`slots`, `binding`, `carry`, `currencies`, `rarityCaps`, `propose`, `native`,
`lootTables`, `freeform` and `market`, and the keys an items catalog entry's
`item` uses. gmtags does not play inventories yet (SPEC §4: only `itemStat`
reads a card's items); the section is checked so that a file which would be
refused is refused at import, every problem at its path.

Every model is strict. The rules between keys of the section are reported
together, each at its path below `items` (`currencies.1.units.0.id`), once its
shapes are valid (shape errors come first, as in `catalogs.py`). What needs the
rest of the file (a value reference that exists and reads no live state, what
an item entry names) is checked by `gmtags.ruleset.validate.items`.
`Ruleset.items` stays the file's JSON; `parse_items` gives the model.

Kept as raw JSON, because SCHEMA-NOTES names the key but not its shape:
`rarities` and `tags` (only their counts, ≤12 and ≤48), `rarityCaps`,
`lootTables` (only its count, ≤24) and `market`; in an entry's `item`, every key
but `category`, `rarity`, `tags` and `cost`.

Decisions where the notes are silent:
- ids repeat in no list: categories, stats, slots and currency families
  (SCHEMA-NOTES §1 says so of the sheet's lists; these are lists of the same
  kind). Unit ids are unique across all families (§10 says so).
- An item stat is a field's shape (§10: "field-like", no longtext) with `id`,
  `label` and `promptVisible`, and neither `section` nor `hideWhen`: items sit
  in no section of the sheet, and there is no sheet field for them to hide by.
- `carry.stat` names one of these item stats (§10: "number stat, min ≥ 0"; the
  Ember Roads file carries by its `bulk` stat); `carry.encumberedAbove` and
  `carry.limit`, like `binding.max`, are value references (§4 lists "items.carry
  values" among the values worked out without live state).
- A family's `perWeight` (how many of its base units weigh one) is a number
  above 0; an item's `cost.amount` is a number of at least 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, Self

from pydantic import Field, TypeAdapter, model_validator

from gmtags.ruleset.base import PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.resolution.common import Found, Loc, distinct, raise_found
from gmtags.ruleset.sheet.common import tagged
from gmtags.ruleset.sheet.fields import (
    _BooleanShape,
    _DiceShape,
    _EnumShape,
    _NumberShape,
    _TextShape,
)

RawJson = Any
"""A key SCHEMA-NOTES names without giving its shape: kept as the JSON the file holds."""

# SCHEMA-NOTES §10: the counts and limits of the section.
MAX_CATEGORIES = 24
MAX_RARITIES = 12
MAX_TAGS = 48
MAX_STATS = 24
MAX_SLOTS = 12
MAX_FAMILIES = 6
MAX_UNITS = 10
MAX_LOOT_TABLES = 24
MAX_UNIT_VALUE = 1_000_000


class Category(RulesetModel):
    """§10 `categories[]`: `{id, label}`, the kind of thing an item is (a weapon, a tonic)."""

    id: SheetId
    label: PromptSafe80


class Slot(RulesetModel):
    """§10 `slots[]`: `{id, label, count 1–20}`, where an item is worn and how many fit."""

    id: SheetId
    label: PromptSafe80
    count: Annotated[int, Field(ge=1, le=20)]


# ---------------------------------------------------------------------------
# Item stats (§10: "field-like with promptVisible default true; no longtext")


class _Stat(RulesetModel):
    id: SheetId
    label: PromptSafe80
    prompt_visible: bool = Field(default=True, alias="promptVisible")


class NumberStat(_NumberShape, _Stat):
    """A number stat: `min`, `max` (required, finite), `default`, `integer` (default true)."""


class TextStat(_TextShape, _Stat):
    """A one-line text stat."""


class BooleanStat(_BooleanShape, _Stat):
    """An on/off stat."""


class EnumStat(_EnumShape, _Stat):
    """A stat holding one of 1–40 distinct values."""


class DiceStat(_DiceShape, _Stat):
    """Dice written as text (`1d6`)."""


Stat = Annotated[
    NumberStat | TextStat | BooleanStat | EnumStat | DiceStat,
    tagged(
        "type",
        {
            "number": NumberStat,
            "text": TextStat,
            "boolean": BooleanStat,
            "enum": EnumStat,
            "dice": DiceStat,
        },
    ),
]
"""§10 `stats[]`, tagged by `type` (a longtext stat is refused at `type`)."""


# ---------------------------------------------------------------------------
# Binding, carrying and money


class Binding(RulesetModel):
    """§10 `binding{label, max}`: how many items a character can bind; `max` reads no live
    state (§4, checked by `validate`)."""

    label: PromptSafe80
    max: RulesetValueRef


class Carry(RulesetModel):
    """§10 `carry{stat, encumberedAbove, limit?}`: the number stat items weigh by, the load a
    character is encumbered above, and the most they can carry (no live reads, §4)."""

    stat: SheetId
    encumbered_above: RulesetValueRef = Field(alias="encumberedAbove")
    limit: RulesetValueRef | None = None


class CurrencyUnit(RulesetModel):
    """§10 `units[]`: `{id, label, value 1–1,000,000}`, the value counted in the family's unit 1."""

    id: SheetId
    label: PromptSafe80
    value: Annotated[int, Field(ge=1, le=MAX_UNIT_VALUE)]


PerWeight = Annotated[float, Field(gt=0)]
"""How many of a family's value-1 units weigh one of `carry.stat` (Ember Roads: 100 coin)."""


class Currency(RulesetModel):
    """§10 `currencies[]`: a family `{id, label, perWeight?, units (1–10)}`; coins of two
    families never change into each other."""

    id: SheetId
    label: PromptSafe80
    per_weight: PerWeight | None = Field(default=None, alias="perWeight")
    units: Annotated[list[CurrencyUnit], Field(min_length=1, max_length=MAX_UNITS)]

    @model_validator(mode="after")
    def _rules_hold(self) -> Self:
        raise_found(self.rules(), "currency")
        return self

    def rules(self) -> Found:
        """§10: "each family needs a unit worth 1; no two units in a family may have the same
        value"."""
        found: Found = []
        values: set[int] = set()
        for number, unit in enumerate(self.units):
            if unit.value in values:
                message = f"two units of family '{self.id}' are worth {unit.value}"
                found.append((("units", number, "value"), message))
            values.add(unit.value)
        if 1 not in values:
            message = f"family '{self.id}' needs a unit worth 1, the one its values count in"
            found.append((("units",), message))
        return found


# ---------------------------------------------------------------------------
# The section


class Items(RulesetModel):
    """SCHEMA-NOTES §10, `items`: what every item of the ruleset is written in.

    Rules between its keys (§10, and the module's decisions): ids repeat in no
    list; unit ids are unique across all families; `perWeight` needs `carry`;
    `carry.stat` names a number stat whose min is at least 0. A family's own
    rules (a unit worth 1, no value twice) are `Currency`'s, so they are
    reported even while another part of the section has shape errors.
    """

    categories: Annotated[list[Category], Field(min_length=1, max_length=MAX_CATEGORIES)]
    rarities: Annotated[list[RawJson], Field(max_length=MAX_RARITIES)] | None = None
    tags: Annotated[list[RawJson], Field(max_length=MAX_TAGS)] | None = None
    stats: Annotated[list[Stat], Field(max_length=MAX_STATS)] | None = None
    slots: Annotated[list[Slot], Field(max_length=MAX_SLOTS)] | None = None
    binding: Binding | None = None
    carry: Carry | None = None
    currencies: Annotated[list[Currency], Field(max_length=MAX_FAMILIES)] | None = None
    rarity_caps: RawJson = Field(default=None, alias="rarityCaps")
    propose: bool = True
    native: bool = True
    loot_tables: Annotated[list[RawJson], Field(max_length=MAX_LOOT_TABLES)] | None = Field(
        default=None, alias="lootTables"
    )
    freeform: Literal["plain", "refuse"] = "plain"
    market: RawJson = None

    @model_validator(mode="after")
    def _rules_hold(self) -> Self:
        raise_found(self.rules(), "items")
        return self

    def rules(self) -> Found:
        """Every rule between the section's keys (class docstring), each at its location."""
        found = distinct(
            [each.id for each in self.categories], ("categories",), "category", ("id",)
        )
        found += distinct([each.id for each in self.stats or ()], ("stats",), "stat", ("id",))
        found += distinct([each.id for each in self.slots or ()], ("slots",), "slot", ("id",))
        families = self.currencies or []
        found += distinct([each.id for each in families], ("currencies",), "family", ("id",))
        return found + self._currency_rules() + self._carry_rules()

    def _currency_rules(self) -> Found:
        """§10: unit ids are unique across all families; `perWeight` needs `carry`."""
        found: Found = []
        units: set[str] = set()
        for place, family in enumerate(self.currencies or ()):
            at: Loc = ("currencies", place)
            for number, unit in enumerate(family.units):
                if unit.id in units:
                    found.append(
                        ((*at, "units", number, "id"), f"currency unit '{unit.id}' repeats")
                    )
                units.add(unit.id)
            if family.per_weight is not None and self.carry is None:
                message = "perWeight weighs coins, so it needs carry (what items weigh by)"
                found.append(((*at, "perWeight"), message))
        return found

    def _carry_rules(self) -> Found:
        """§10: `carry.stat` is a number stat of `stats` with min ≥ 0."""
        if self.carry is None:
            return []
        name = self.carry.stat
        stat = next((each for each in self.stats or () if each.id == name), None)
        if stat is None:
            return [(("carry", "stat"), f"names no item stat '{name}'")]
        if not isinstance(stat, NumberStat):
            return [(("carry", "stat"), f"item stat '{name}' is not a number stat")]
        if stat.min < 0:
            message = f"item stat '{name}' can go below 0 (min {stat.min}); a weight never does"
            return [(("carry", "stat"), message)]
        return []

    def value_refs(self) -> list[tuple[str, RulesetValueRef]]:
        """The value references of the section, each with its path below `items`: what §4
        says is worked out without live state (`binding.max`, the `carry` values)."""
        found: list[tuple[str, RulesetValueRef]] = []
        if self.binding is not None:
            found.append(("binding.max", self.binding.max))
        if self.carry is not None:
            found.append(("carry.encumberedAbove", self.carry.encumbered_above))
            if self.carry.limit is not None:
                found.append(("carry.limit", self.carry.limit))
        return found

    def stat(self, stat_id: str) -> Stat | None:
        """The item stat with this id, or None."""
        return next((each for each in self.stats or () if each.id == stat_id), None)

    @property
    def unit_ids(self) -> set[str]:
        """Every currency unit id, across the families."""
        return {unit.id for family in self.currencies or () for unit in family.units}


def raw_ids(listed: RawJson) -> set[str]:
    """The `id`s of the objects of a raw list (`rarities`, `tags`), as far as it holds any."""
    entries = listed if isinstance(listed, list) else []
    return {e["id"] for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str)}


ITEMS: TypeAdapter[Items | None] = TypeAdapter(Items | None)
"""The whole `items` section (or its absence), as `parse_items` validates it."""


def parse_items(raw: Mapping[str, Any] | None) -> Items | None:
    """Validate the `items` section strictly; None when the file has none.

    Raises `ValidationError` listing every problem at its path below `items`
    (`categories.2.id`, `currencies.0.units`): shapes first, and once those are
    sound, every rule between the section's keys at once.
    """
    return ITEMS.validate_python(None if raw is None else dict(raw))


# ---------------------------------------------------------------------------
# An items catalog entry's `item` (§10, "Item catalog entries use item {…}")


class ItemCost(RulesetModel):
    """§10 `cost{amount, unit}`: a price in one currency unit."""

    amount: Annotated[float, Field(ge=0)]
    unit: SheetId


class CatalogItem(RulesetModel):
    """§10: the keys an item entry uses, `{category, rarity?, tags?, stats?, slots?, stack?,
    cost?, sold?, service?, binds?, worn?, carried?, requires?, attack?, use?, charges?}`.

    Strict on its keys; `category`, `rarity` and `tags` are ids and `cost` has
    its shape, the rest is kept as written. What each names in `items` is
    checked by `gmtags.ruleset.validate.items.check_item_entries`.
    """

    category: SheetId
    rarity: SheetId | None = None
    tags: list[SheetId] | None = None
    stats: RawJson = None
    slots: RawJson = None
    stack: RawJson = None
    cost: ItemCost | None = None
    sold: RawJson = None
    service: RawJson = None
    binds: RawJson = None
    worn: RawJson = None
    carried: RawJson = None
    requires: RawJson = None
    attack: RawJson = None
    use: RawJson = None
    charges: RawJson = None


def parse_item(raw: Mapping[str, Any]) -> CatalogItem:
    """Validate one entry's `item` strictly; `ValidationError` locations are below `item`."""
    return CatalogItem.model_validate(dict(raw))
