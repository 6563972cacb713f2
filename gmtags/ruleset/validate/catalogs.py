"""SCHEMA-NOTES §9, 000 "Un amuleto…" and 004: what a catalog names in the rest of the file.

The shapes of `catalogs` and the rules between a catalog's own keys are the
models' (`gmtags.ruleset.catalogs`); these passes read the typed
`Ruleset.catalog_models` and check what needs the sheet, the resolution or the
other top-level blocks. Entries kept in an asset file or borrowed from another
ruleset are not in the file, so they are checked when they are read, never here.
What `grants` and `offeredWhen` name is the builder's to check (BUILDER.md,
chunks A and B), with the steps they need.

Decisions where the notes and the seeds are silent:
- a row whose list the catalog does not feed, or that feeds a list the sheet
  lacks, is reported once (at `feeds` or at the row's `list`), never again for
  its values;
- a required column is missing from a row when its value is absent or empty
  text;
- `mechanics.save.save` names a save of the sheet, and `reaction.against`
  names catalogs of this file;
- a catalog only the party's builder picks from (002, "Creación compartida del
  grupo") feeds the party's lists: its `feeds`, rows and filter fields are read
  against the party sheet (`SheetIndex.party_catalogs`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gmtags.errors import Problem
from gmtags.ruleset.catalogs import Catalog, CatalogEntry, CatalogRow, ReactionMoment
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.sheet import NumberColumn
from gmtags.ruleset.validate.index import Node, SheetIndex, describe
from gmtags.ruleset.validate.refs import check_ref, no_live
from gmtags.ruleset.validate.resolution import below
from gmtags.ruleset.validate.sheet import contextual_effect


def _entries(ruleset: Ruleset) -> Iterator[tuple[str, Catalog, CatalogEntry]]:
    """Every inline entry with its JSON path (`catalogs.N.entries.M`) and its catalog."""
    for position, catalog in enumerate(ruleset.catalog_models):
        for item, entry in enumerate(catalog.entries or ()):
            yield f"catalogs.{position}.entries.{item}", catalog, entry


def _mechanics(ruleset: Ruleset, key: str) -> Iterator[tuple[str, Any]]:
    """Every inline entry's `mechanics.<key>` that is given, with its JSON path."""
    for path, _, entry in _entries(ruleset):
        found = getattr(entry.mechanics, key) if entry.mechanics is not None else None
        if found is not None:
            yield f"{path}.mechanics.{key}", found


def check_catalog_checks(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """000, "Un amuleto que cambia una tirada" (SCHEMA-NOTES §9): a catalog entry's check.

    "Solo dice-pool puede aplicarlo; un conjunto dice-sum con mechanics.check
    se rechaza al importar": on any other kind it is refused. On a dice pool
    its faces fit the pool (`DicePool.check_effect_rules`); its shape (strict,
    doing at least one thing) is the model's.
    """
    rules = ruleset.resolution_rules
    problems: list[Problem] = []
    for at, check in _mechanics(ruleset, "check"):
        if not rules.charms:
            message = "only a dice-pool ruleset applies mechanics.check; this one is "
            problems.append(Problem(at, message + rules.kind_name))
            continue
        problems += below(at, rules.check_effect_rules(check))
    return problems


def check_catalog_contextual(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """004, "Una entrada de catálogo puede llevar mechanics.contextual": the names it uses.

    As on a list's contextual: the skills and saves it is restricted to exist,
    its `check` and `cost` follow the list rules (pool effects need a dice
    pool, `cancel: false` a `resolution.cancel`, a cost a pool, pool group or
    simple track).
    """
    problems: list[Problem] = []
    for at, contextual in _mechanics(ruleset, "contextual"):
        for key, known in (("skills", index.skills), ("saves", index.saves)):
            named = getattr(contextual, key) if index.parsed(f"sheet.{key}") else None
            for place, name in enumerate(named or []):
                if name not in known:
                    problems.append(Problem(f"{at}.{key}.{place}", f"names no {key[:-1]} '{name}'"))
        problems += contextual_effect(contextual.check, contextual.cost, at, index)
    return problems


def check_catalog_headers(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """SCHEMA-NOTES §9 and 004: what a catalog's own keys name elsewhere in the file.

    "`creatures` requires a `combat` block; `items` requires an `items` block";
    `feeds` names lists of the sheet and a filter's `startFrom.field` a field;
    004, "Un catálogo no puede tomar prestado de su propio conjunto".
    """
    problems: list[Problem] = []
    for position, catalog in enumerate(ruleset.catalog_models):
        at = f"catalogs.{position}"
        if catalog.holds == "creatures" and ruleset.combat is None and index.parsed("combat"):
            problems.append(Problem(f"{at}.holds", "a catalog of creatures needs a combat block"))
        if catalog.holds == "items" and ruleset.items is None and index.parsed("items"):
            problems.append(Problem(f"{at}.holds", "a catalog of items needs an items block"))
        sheet = index.for_catalog(catalog.id)
        lists, fields = _parsed(sheet, "lists"), _parsed(sheet, "fields")
        for place, list_id in enumerate(catalog.feeds or ()):
            if list_id not in sheet.lists and lists:
                problems.append(Problem(f"{at}.feeds.{place}", f"names no list '{list_id}'"))
        for place, found in enumerate(catalog.filters or ()):
            start = found.start_from
            if start is not None and start.field not in sheet.fields and fields:
                where = f"{at}.filters.{place}.startFrom.field"
                problems.append(Problem(where, f"names no field '{start.field}'"))
        mine = index.parsed("id")
        if catalog.from_ is not None and catalog.from_.ruleset == ruleset.id and mine:
            problems.append(
                Problem(f"{at}.from.ruleset", "a catalog cannot borrow from its own ruleset")
            )
    return problems


def _parsed(sheet: SheetIndex, key: str) -> bool:
    """True when the party and the builders (which say whose sheet a catalog is read against:
    `SheetIndex.party_catalogs`) and the `key` of that sheet have no shape problems."""
    whose = sheet.parsed("party", "sheet.builder")
    return whose and (sheet.party or sheet.parsed(f"sheet.{key}"))


def check_catalog_rows(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """SCHEMA-NOTES §9, `rows`: each row fits the list it is written to.

    "Values are checked like a list row: unknown column, wrong type, out of
    range, and missing `required` are all errors." "Each scaled column must be
    a number column"; its `from` names what exists and reads neither live
    state nor (002) a list sum, "ni siquiera mediante un valor derivado".
    """
    problems: list[Problem] = []
    for path, catalog, entry in _entries(ruleset):
        sheet = index.for_catalog(catalog.id)
        for place, row in enumerate(entry.rows or ()):
            problems += _row(row, f"{path}.rows.{place}", sheet)
    return problems


def _row(row: CatalogRow, at: str, index: SheetIndex) -> list[Problem]:
    """One row against its list (a list the sheet lacks is reported at the catalog's `feeds`)."""
    sheet_list = index.lists.get(row.list)
    if sheet_list is None:
        return []
    problems: list[Problem] = []
    for column_id, value in row.values.items():
        column = sheet_list.column(column_id)
        if column is None:
            message = f"list '{row.list}' has no column '{column_id}'"
            problems.append(Problem(f"{at}.values.{column_id}", message))
            continue
        reason = column.holds(value)
        if reason is not None:
            message = f"column '{column_id}' can never hold {value!r} ({reason})"
            problems.append(Problem(f"{at}.values.{column_id}", message))
    for column in sheet_list.columns:
        if column.required and row.values.get(column.id, "") == "":
            message = f"column '{column.id}' of list '{row.list}' is required"
            problems.append(Problem(f"{at}.values.{column.id}", message))
    for column_id, scaled in (row.scaled or {}).items():
        where = f"{at}.scaled.{column_id}"
        column = sheet_list.column(column_id)
        if column is not None and not isinstance(column, NumberColumn):
            problems.append(Problem(where, f"column '{column_id}' is not a number column"))
        problems += _scaling(scaled.from_, f"{where}.from", index, "a scaled column")
    return problems


def _scaling(ref: RulesetValueRef, at: str, index: SheetIndex, what: str) -> list[Problem]:
    """A value a catalog scales by: it exists, and is worked out before play (SCHEMA-NOTES §4)."""
    problems = check_ref(ref, at, index)
    if problems:
        return problems
    problems = no_live(ref, at, index, what)
    chain = index.trace([ref], lambda node: _reads_list_sum(node, index))
    if ref.key == "listSum" or chain is not None:
        through = f"; it does through {describe(chain)}" if chain else ""
        problems.append(Problem(at, f"{what} cannot read a list sum{through}"))
    return problems


def _reads_list_sum(node: Node, index: SheetIndex) -> bool:
    """True for a derived value, computed ability or skill cap that reads a `listSum` directly."""
    kind, name = node
    refs: list[RulesetValueRef | None] = []
    if kind == "derived" and name in index.derived:
        refs = [ref for _, ref in index.derived[name][1].refs()]
    elif kind == "ability" and name in index.abilities:
        refs = list(index.abilities[name].value or [])
    elif kind in ("skill", "save"):
        entry = (index.skills if kind == "skill" else index.saves).get(name)
        refs = [entry.cap if entry is not None else None]
    return any(ref is not None and ref.key == "listSum" for ref in refs)


def check_catalog_mechanics(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """SCHEMA-NOTES §9, `mechanics`: what an entry's mechanics name elsewhere in the file.

    A `cost` term's `pool` is "a pool id or pool group"; `save.save` is a save
    of the sheet; `scales.from` is worked out before play ("no live reads",
    §4); `reaction.against.catalogs` are catalogs of this file.
    """
    catalog_ids = {catalog.id for catalog in ruleset.catalog_models}
    problems: list[Problem] = []
    for path, _, entry in _entries(ruleset):
        mechanics = entry.mechanics
        if mechanics is None:
            continue
        at = f"{path}.mechanics"
        costs = (mechanics.cost or []) if index.parsed("sheet.live") else []
        for place, term in enumerate(costs):
            if term.pool not in index.pools and term.pool not in index.groups:
                message = f"names no pool or pool group '{term.pool}'"
                problems.append(Problem(f"{at}.cost.{place}.pool", message))
        save = mechanics.save if index.parsed("sheet.saves") else None
        if save is not None and save.save not in index.saves:
            problems.append(Problem(f"{at}.save.save", f"names no save '{save.save}'"))
        if mechanics.scales is not None:
            problems += _scaling(mechanics.scales.from_, f"{at}.scales.from", index, "scales")
        reaction = mechanics.reaction
        against = reaction.against if isinstance(reaction, ReactionMoment) else None
        for place, catalog_id in enumerate(against.catalogs if against is not None else ()):
            if catalog_id not in catalog_ids:
                where = f"{at}.reaction.against.catalogs.{place}"
                problems.append(Problem(where, f"names no catalog '{catalog_id}'"))
    return problems
