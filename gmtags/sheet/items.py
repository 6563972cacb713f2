"""`itemStat`: a number read off the items a character has (SCHEMA-NOTES §4, SPEC §4).

002: "itemStat lee los objetos que tiene el personaje, como la guardia de la
armadura que lleva puesta, y sigue la misma regla que una lectura viva". The
card's `items` (`gmtags.state.snapshot.CardItem`) are read as `HeldItem`s, and
`item_stat` picks over those that match:

- `from`: `worn` keeps the items worn, `carried` those held and not worn,
  `all` both;
- `slot`, `category`, `tag` keep the items in that slot, of that category,
  with that tag (every filter written must hold);
- `pick`: `sum` adds the matching items' `stat`, `max` and `min` take the
  highest and lowest, `count` counts them;
- with nothing matching, the reference reads its `default`, else 0.

An item's stat is its catalog entry's `item.stats` value, else the stat's
`default` in `items.stats` (else 0 clamped into the stat's range), read as a
sheet field is: a number of the wrong type reads the default, one out of range
is clamped, an integer stat is rounded down. A boolean stat reads 1 or 0.

Decisions where the sources are silent:
- `count` copies weigh as copies do: `sum` adds the stat once per copy and
  `count` counts every copy, while `max` and `min` read the stat once (copies
  of one item share it). A line with count 0 holds no copy and matches nothing.
- A `ref` naming no entry of the ruleset's item catalogs (a dropped entry, a
  catalog kept in an asset file or borrowed from another ruleset, which is not
  loaded) is kept on the card and contributes nothing, to `count` neither. An
  entry a game's layers hide still reads: a character keeps what they carry
  (004, "sigue contando por lo que dio").
- A free-form item (`name` and `stats`) reads its own `stats`, through the
  same stat shapes; it has no category and no tag, so a `category` or `tag`
  filter never keeps it. Where `items.freeform` is `refuse` it contributes
  nothing (kept on the card all the same).
- An item's slots are the `slot` its line names, else every slot its entry's
  `item.slots` takes (the hand axe's hands): a `slot` filter keeps the body
  armour whether or not the card says where it is worn.
- A stat that holds no number (text, dice, an enum) gives no value: `sum`,
  `max` and `min` skip the item, so a reference to such a stat reads as
  nothing matching. `count` reads no stat and counts whatever matches.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from gmtags.ruleset.items import BooleanStat, CatalogItem, Items, NumberStat
from gmtags.ruleset.memo import per_ruleset
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.refs import ItemStat
from gmtags.state.snapshot import CardItem, CharacterCard

_NONE: Mapping[str, object] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class HeldItem:
    """One line of a card's `items` as `itemStat` reads it: its entry's words, or its own."""

    count: int
    worn: bool
    category: str | None
    tags: frozenset[str]
    slots: frozenset[str]
    stats: Mapping[str, object]

    def matches(self, spec: ItemStat) -> bool:
        """Whether the line holds a copy and passes every filter `spec` writes."""
        if self.count <= 0:
            return False
        if spec.from_ == "worn" and not self.worn:
            return False
        if spec.from_ == "carried" and self.worn:
            return False
        if spec.slot is not None and spec.slot not in self.slots:
            return False
        if spec.category is not None and spec.category != self.category:
            return False
        return spec.tag is None or spec.tag in self.tags


@per_ruleset
def catalog_items(ruleset: Ruleset) -> Mapping[str, CatalogItem]:
    """Every item entry the ruleset file holds, by `catalog/entry`, hidden ones included."""
    found: dict[str, CatalogItem] = {}
    for catalog in ruleset.catalog_models:
        for entry in catalog.entries or ():
            if entry.item is not None:
                found[f"{catalog.id}/{entry.id}"] = entry.item
    for ref, entry in ruleset.hidden_entries.items():
        if entry.item is not None:
            found.setdefault(ref, entry.item)
    return MappingProxyType(found)


def _slot_ids(raw: object) -> frozenset[str]:
    """The slots an entry's raw `item.slots` takes: an object's keys, or a list's ids."""
    if isinstance(raw, Mapping):
        return frozenset(key for key in raw if isinstance(key, str))
    if isinstance(raw, list):
        return frozenset(each for each in raw if isinstance(each, str))
    return frozenset()


def held_item(ruleset: Ruleset, line: CardItem) -> HeldItem | None:
    """What one line of `items` holds, or None when it contributes nothing (module docstring)."""
    own_slot = frozenset() if line.slot is None else frozenset({line.slot})
    if line.ref is None:
        items = ruleset.items_model
        if items is None or items.freeform == "refuse":
            return None
        return HeldItem(line.count, line.worn, None, frozenset(), own_slot, line.stats or _NONE)
    entry = catalog_items(ruleset).get(line.ref)
    if entry is None:
        return None
    stats = entry.stats if isinstance(entry.stats, Mapping) else _NONE
    slots = own_slot or _slot_ids(entry.slots)
    tags = frozenset(entry.tags or ())
    return HeldItem(line.count, line.worn, entry.category, tags, slots, stats)


def held_items(ruleset: Ruleset, card: CharacterCard | None) -> tuple[HeldItem, ...]:
    """The lines of a card's `items` that can contribute (none for a character without a card)."""
    if card is None or not card.items:
        return ()
    found = (held_item(ruleset, line) for line in card.items)
    return tuple(item for item in found if item is not None)


def _finite(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def stat_number(items: Items, stat_id: str, stored: object) -> float | None:
    """An item's value of a stat, read like a sheet field (module docstring); None for a stat
    that holds no number or that `items` does not declare."""
    shape = items.stat(stat_id)
    if isinstance(shape, BooleanStat):
        on = stored if isinstance(stored, bool) else bool(shape.default)
        return 1 if on else 0
    if not isinstance(shape, NumberStat):
        return None
    number = _finite(stored)
    if number is None:
        number = shape.default if shape.default is not None else 0
    if shape.integer:
        number = math.floor(number)
    return min(max(number, shape.min), shape.max)


def item_stat(ruleset: Ruleset, held: Sequence[HeldItem], spec: ItemStat) -> float:
    """SCHEMA-NOTES §4 `itemStat` over a character's held items (module docstring)."""
    fallback = spec.default if spec.default is not None else 0
    matching = [item for item in held if item.matches(spec)]
    if spec.pick == "count":
        return sum(item.count for item in matching) if matching else fallback
    items = ruleset.items_model
    if items is None or spec.stat is None:
        return fallback
    stat = spec.stat
    read = [(stat_number(items, stat, item.stats.get(stat)), item.count) for item in matching]
    numbers = [(value, count) for value, count in read if value is not None]
    if not numbers:
        return fallback
    if spec.pick == "sum":
        return sum(value * count for value, count in numbers)
    if spec.pick == "max":
        return max(value for value, _ in numbers)
    return min(value for value, _ in numbers)
