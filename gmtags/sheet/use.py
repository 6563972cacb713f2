"""`op="use"` (alias `cast`): pay for something the character picked from a catalog.

ENGINE-NOTES §6: a `use` names an entry (`name=`, or `spell=`) and optionally a
`pool=` to pay from; the engine turns it into plain spends and applies them all
or nothing. SCHEMA-NOTES §9: an entry's price is `mechanics.cost`, up to four
`{pool, amount}` terms, where `pool` is a pool id or a pool group.

What a character has picked is read from the card: `picks` (SPEC §4,
`"catalog/entry"`) and the list rows a pick wrote, which carry the row mark
`_catalog: "<catalogId>/<entryId>"` (SCHEMA-NOTES §1). The price is:

- each cost term: a pool id pays from that pool; a group pays from the first
  pool of the group, in sheet order, that can still afford it (else the first
  one, which then refuses `insufficient`); a pool the sheet does not have now
  (hidden, maximum 0) refuses `unknown-pool`, as a spend on it would;
- `pool=` pays a one-term price from another pool of the same group (an
  upcast); anything else is `bad-pool`;
- plus one use from every list-row pool the same entry wrote (a feature's
  counter), once; such a row whose pool does not exist now is `insufficient`.

Only entries the ruleset holds are known: a catalog kept in a separate asset
file is not loaded, nor a borrowed one whose lender was not found
(`load_ruleset(…, library=…)`), so their entries are `unknown-entry` (the price
cannot be known, and guessing would let a spell be cast for free); a borrowed
catalog read from its lender offers its entries as the file's own. The
entries are the ruleset's typed catalogs (`Ruleset.catalog_models`), whose
`mechanics.cost` the import has validated.

An entry a game's layers hide is not offered (SPEC §4): the ruleset the game
plays (`gmtags.ruleset.played.effective_ruleset`) leaves it out of its
catalogs, so a `use` of it is `unknown-entry` even when picked, while the rows
the pick wrote stay on the card and keep what they gave (004).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from gmtags.ruleset.catalogs import CatalogEntry
from gmtags.ruleset.memo import per_ruleset
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.sheet import SheetList, TextColumn
from gmtags.sheet.live import (
    Changed,
    Outcome,
    PoolSpec,
    Refused,
    find_pool,
    pool_now,
    pool_reading,
    same_name,
    with_pool,
)
from gmtags.sheet.values import SheetValues
from gmtags.state.snapshot import CharacterCard, LiveEntry

ROW_MARK = "_catalog"
"""SCHEMA-NOTES §1: the key a list row written by a catalog pick holds its `catalog/entry` in."""


@dataclass(frozen=True, slots=True)
class KnownEntry:
    """A catalog entry the ruleset file holds, with its `catalog/entry` ref."""

    ref: str
    entry: CatalogEntry

    @property
    def id(self) -> str:
        """The entry's id."""
        return self.entry.id

    @property
    def label(self) -> str:
        """The entry's label."""
        return self.entry.label

    @property
    def cost(self) -> tuple[tuple[str, int], ...]:
        """`mechanics.cost` as `(pool, amount)` terms; () when there is none."""
        mechanics = self.entry.mechanics
        return mechanics.cost_terms if mechanics is not None else ()


@per_ruleset
def catalog_entries(ruleset: Ruleset) -> Mapping[str, KnownEntry]:
    """Every entry written inline in the catalogs, by `catalog/entry` (SCHEMA-NOTES §9)."""
    found: dict[str, KnownEntry] = {}
    for catalog in ruleset.catalog_models:
        for entry in catalog.entries or ():
            ref = f"{catalog.id}/{entry.id}"
            found.setdefault(ref, KnownEntry(ref, entry))
    return MappingProxyType(found)


def _name_column(ruleset: Ruleset, sheet_list: SheetList) -> str | None:
    """The column a row is known by: the GM summary's, the row pool's, else the first text one."""
    summary = ruleset.gm.get("sheetSummary")
    shown = summary.get("lists") if isinstance(summary, Mapping) else None
    for item in shown if isinstance(shown, list) else []:
        if isinstance(item, Mapping) and item.get("list") == sheet_list.id:
            column = item.get("nameColumn")
            if isinstance(column, str):
                return column
    if sheet_list.pools is not None:
        return sheet_list.pools.name_column
    return next((c.id for c in sheet_list.columns if isinstance(c, TextColumn)), None)


def _marked_rows(card: CharacterCard, sheet_list: SheetList) -> list[dict[str, Any]]:
    rows = card.lists.get(sheet_list.id, [])
    return [row for row in rows if isinstance(row, dict) and isinstance(row.get(ROW_MARK), str)]


def find_entry(
    ruleset: Ruleset, card: CharacterCard, entries: Mapping[str, KnownEntry], written: str
) -> KnownEntry | Refused:
    """The picked entry a `use` names (ENGINE-NOTES §6: `unknown-entry`, `ambiguous-entry`).

    A pick answers to its entry's label or id; a row a pick wrote answers to the
    name the sheet shows it under and to its entry's label. Two different
    entries answering to the name are ambiguous.
    """
    if not written.strip():
        return Refused("unknown-entry")
    matched: list[str] = []
    for ref in card.picks:
        entry = entries.get(ref)
        if entry is not None and (same_name(written, entry.label) or same_name(written, entry.id)):
            matched.append(ref)
    for sheet_list in ruleset.sheet.lists:
        column = _name_column(ruleset, sheet_list)
        for row in _marked_rows(card, sheet_list):
            ref = row[ROW_MARK]
            entry = entries.get(ref)
            name = row.get(column) if column else None
            if (isinstance(name, str) and same_name(written, name)) or (
                entry is not None and same_name(written, entry.label)
            ):
                matched.append(ref)
    refs = list(dict.fromkeys(matched))
    if not refs:
        return Refused("unknown-entry")
    if len(refs) > 1:
        return Refused("ambiguous-entry")
    entry = entries.get(refs[0])
    return entry if entry is not None else Refused("unknown-entry")


def _group_of(ruleset: Ruleset, target: str) -> str | None:
    """The pool family a cost term names: a declared pool's group, or the group itself."""
    for pool in ruleset.sheet.live.pools:
        if pool.id == target:
            return pool.group
    return target if any(pool.group == target for pool in ruleset.sheet.live.pools) else None


def plan_use(
    values: SheetValues,
    pools: Sequence[PoolSpec],
    entry: LiveEntry,
    chosen: KnownEntry,
    pay_from: str | None,
) -> list[tuple[PoolSpec, int]] | Refused:
    """What using `chosen` spends, pool by pool, or why not (ENGINE-NOTES §6; module doc)."""
    ruleset = values.ruleset
    assert values.card is not None
    declared = [pool for pool in pools if pool.list_id is None]
    by_key = {pool.key: pool for pool in declared}
    terms = list(chosen.cost)
    if pay_from is not None:
        group = _group_of(ruleset, terms[0][0]) if len(terms) == 1 else None
        target = find_pool(declared, pay_from)
        if group is None or isinstance(target, Refused) or target.group != group:
            return Refused("bad-pool")
        terms = [(target.key, terms[0][1])]
    steps: list[tuple[PoolSpec, int]] = []
    running: dict[str, int] = {}

    def pay(pool: PoolSpec, amount: int) -> None:
        running[pool.key] = running.get(pool.key, 0) + amount
        steps.append((pool, amount))

    for pool_id, amount in terms:
        direct = by_key.get(pool_id)
        if direct is not None:
            pay(direct, amount)
            continue
        family = [pool for pool in declared if pool.group == pool_id]
        if not family and any(pool.group == pool_id for pool in ruleset.sheet.live.pools):
            return Refused("insufficient")
        if not family:
            return Refused("unknown-pool")
        affordable = (
            pool
            for pool in family
            if pool_reading(pool, entry)[0] - running.get(pool.key, 0) >= amount
        )
        pay(next(affordable, family[0]), amount)
    for sheet_list in ruleset.sheet.lists:
        spec = sheet_list.pools
        if spec is None:
            continue
        hidden = values.hidden(sheet_list.hide_when)
        for row in _marked_rows(values.card, sheet_list):
            name = row.get(spec.name_column)
            if row[ROW_MARK] != chosen.ref or not isinstance(name, str) or not name.strip():
                continue
            key = f"{sheet_list.id}:{name.strip().lower()}"
            counter = next((pool for pool in pools if pool.key == key), None)
            if counter is None and not hidden:
                return Refused("insufficient")
            if counter is not None and counter.key not in running:
                pay(counter, 1)
    return steps


def use(
    values: SheetValues,
    pools: Sequence[PoolSpec],
    entry: LiveEntry,
    name: str,
    pay_from: str | None = None,
) -> Outcome:
    """Apply `[sheet: op="use" name=… pool=…]`: every spend of the price, or none of them.

    `now` is `EntryLabel: Pool value/max, …` (each pool paid, as it is after
    paying), or the label alone when the entry costs nothing.
    """
    if values.card is None:
        return Refused("unknown-entry")
    chosen = find_entry(values.ruleset, values.card, catalog_entries(values.ruleset), name)
    if isinstance(chosen, Refused):
        return chosen
    plan = plan_use(values, pools, entry, chosen, pay_from)
    if isinstance(plan, Refused):
        return plan
    working = entry
    paid: dict[str, PoolSpec] = {}
    for pool, amount in plan:
        value, temp = pool_reading(pool, working)
        if value < amount:
            return Refused("insufficient")
        working = with_pool(pool, working, value - amount, temp)
        paid.setdefault(pool.key, pool)
    shown = [
        f"{pool.label} {pool_now(pool, *pool_reading(pool, working))}" for pool in paid.values()
    ]
    return Changed(working, f"{chosen.label}: {', '.join(shown)}" if shown else chosen.label)
