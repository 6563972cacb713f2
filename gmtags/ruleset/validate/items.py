"""SCHEMA-NOTES §10 and §4: what `items` and the items catalogs' entries name elsewhere.

The shapes of `items` and the rules between its own keys are the model's
(`gmtags.ruleset.items`); these passes check what needs the sheet or the
catalogs: `binding.max` and the `carry` values exist and are worked out before
play (§4: "Live reads … are refused … `items.binding.max`, and `items.carry`
values"), and an item entry's category, rarity, tags, stats, slots and price
unit are ones `items` declares.

The passes read the typed `Ruleset.items_model` and each entry's typed
`item` (`validate` looks no name up in a part of the file whose shapes are broken).

Decisions where the notes are silent: an entry's `stats` and `slots` are kept
as raw JSON, but where they are objects their keys are item stats and slots
of `items`, and a stat's value is one that stat can hold (as a catalog row's
values are checked against its list's columns, §9).
"""

from __future__ import annotations

from collections.abc import Iterator

from gmtags.errors import Problem
from gmtags.ruleset.items import CatalogItem, Items, raw_ids
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.validate.index import SheetIndex
from gmtags.ruleset.validate.refs import check_ref, no_live


def check_items_values(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """SCHEMA-NOTES §4 and §10: `binding.max`, `carry.encumberedAbove` and `carry.limit`.

    Each is a value reference whose ids exist, and none reads live state,
    directly or through what it reads: they are worked out without it (§4).
    """
    items = ruleset.items_model
    if items is None:
        return []
    problems: list[Problem] = []
    for below, ref in items.value_refs():
        path = f"items.{below}"
        found = check_ref(ref, path, index)
        problems += found or no_live(ref, path, index, "a binding or carry value")
    return problems


def _item_entries(ruleset: Ruleset) -> Iterator[tuple[str, CatalogItem]]:
    """Every inline entry's `item` with its JSON path (`catalogs.N.entries.M.item`)."""
    for position, catalog in enumerate(ruleset.catalog_models):
        for number, entry in enumerate(catalog.entries or ()):
            if entry.item is not None:
                yield f"catalogs.{position}.entries.{number}.item", entry.item


def check_item_entries(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """SCHEMA-NOTES §10, "Item catalog entries use item {category, rarity?, tags?, stats?,
    slots?, …, cost{amount,unit}?}": what an item entry names is declared by `items`.

    `category` is one of `items.categories`, `rarity` of `items.rarities` and
    each tag of `items.tags` (none is declared when the list is absent); each key of `stats` an
    item stat holding that value, each key of `slots` an item slot, and
    `cost.unit` a currency unit. A catalog of items without an `items` block is
    reported by `check_catalog_headers`.
    """
    items = ruleset.items_model
    if items is None:
        return []
    categories = {category.id for category in items.categories}
    slots = {slot.id for slot in items.slots or ()}
    rarities = raw_ids(items.rarities)
    tags = raw_ids(items.tags)
    units = items.unit_ids
    problems: list[Problem] = []
    for path, item in _item_entries(ruleset):
        if item.category not in categories:
            problems.append(Problem(f"{path}.category", f"names no category '{item.category}'"))
        if item.rarity is not None and item.rarity not in rarities:
            problems.append(Problem(f"{path}.rarity", f"names no rarity '{item.rarity}'"))
        for place, tag in enumerate(item.tags or ()):
            if tag not in tags:
                problems.append(Problem(f"{path}.tags.{place}", f"names no tag '{tag}'"))
        problems += _stats(item, path, items)
        if isinstance(item.slots, dict):
            problems += [
                Problem(f"{path}.slots.{name}", f"names no item slot '{name}'")
                for name in item.slots
                if name not in slots
            ]
        if item.cost is not None and item.cost.unit not in units:
            problems.append(
                Problem(f"{path}.cost.unit", f"names no currency unit '{item.cost.unit}'")
            )
    return problems


def _stats(item: CatalogItem, path: str, items: Items) -> list[Problem]:
    """An entry's `stats`: each key an item stat, each value one that stat can hold."""
    if not isinstance(item.stats, dict):
        return []
    problems: list[Problem] = []
    for name, value in item.stats.items():
        stat = items.stat(name)
        if stat is None:
            problems.append(Problem(f"{path}.stats.{name}", f"names no item stat '{name}'"))
            continue
        if not isinstance(value, str | int | float | bool):
            problems.append(
                Problem(f"{path}.stats.{name}", "a stat holds a number, text or a boolean")
            )
            continue
        reason = stat.holds(value)
        if reason is not None:
            message = f"item stat '{name}' can never hold {value!r} ({reason})"
            problems.append(Problem(f"{path}.stats.{name}", message))
    return problems
