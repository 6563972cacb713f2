"""004, "Catálogos prestados" (Capability API 1.220): a catalog read from another ruleset.

`load_ruleset(source, library=(dirs…))` finds the lender of each catalog's
`from.ruleset` among the ruleset files of `library`, loads it (validated) and
reads its catalog's entries against the borrower: ids go through `from.sheet`
(`fields`, `values`, `tiers`, `refs`, item `slots`), then every entry is
checked as if it were written in the borrower's file; one that names something
the borrower lacks is left out and reported, and the rest pass. `entries`
beside `from` replace a borrowed entry with the same id, in its place, or are
added after the borrowed ones (they are the borrower's own, checked when the
file is read). The result is kept on the ruleset (`Ruleset.catalog_models`
gives it; `Ruleset.catalogs` stays the file's JSON) with what was left out
(`Ruleset.borrow_notes`), each note also logged with structlog. Nothing here
raises in play (BUILDER §3.26): a lender not found leaves the catalog empty
with a note, and the builder's steps on it are "not configured".

Decisions where the seed is silent:
- The library is a list of folders. A lender is a `*.json` file directly in a
  folder whose `id` is `from.ruleset` ("tal cual"), else a file in a
  subfolder of it, the subfolder being the community namespace it is
  installed under (SCHEMA-NOTES §1: `<namespace>/<bare id>`, while "the file
  itself always carries the bare id"). Folders are searched in the order
  given, a folder's own files before its namespaces, namespaces and files in
  name order; the first file with the id is the lender. A file that is not a
  ruleset object, or has no id, is skipped.
- The lender is read and validated without looking for its own lenders, so
  it never borrows in turn; an invalid lender, or one without the named
  catalog (or whose catalog keeps its entries in an asset file, not loaded by
  gmtags), leaves the catalog empty with a note, as a missing one does.
  "Empty" is whole (BUILDER §3.26): the entries beside `from` change a
  borrowed catalog, so without it they are not offered either.
- What is refused, as a `RulesetError` at its path like every other ruleset
  problem, is only what is wrong whatever lender is installed: borrowing from
  its own ruleset (`catalogs.N.from.ruleset`, a validate pass), and, once the
  lender is found, a lent catalog that borrows itself (`…from.catalog`) or
  that holds something else than this one's `holds` (`catalogs.N.holds`).
- The header is the borrower's: its `label`, `holds`, `feeds`; its `filters`
  and `units` when it names them, else the lender's.
- `from.sheet.fields` maps every `{"field": id}` reference in an entry (a
  `offeredWhen`, a scaled column, a grant's rating target), the keys of
  `grants.sets` and of a creature's `sheet.fields` (a creature written as a
  sheet uses SCHEMA-NOTES §13's `build` keys); `null` drops the value, and an
  entry that reads a dropped field is left out. `values` maps the text values
  of those fields, keyed by the lender's field id. `tiers` maps `tier` and
  `held` in `grants.trained` and the tier ids of a creature's `sheet.skills`
  and `sheet.saves`. `refs` replaces a `{"derived": id}` reference with the
  borrower's value. `slots` maps the slot ids an item's `slots` names.
- A creature is checked for the names gmtags can read in it: its `abilities`
  and `saves` keys, its `conditionImmunities` that the lender declares (a
  state of its sheet or a combat condition: the others are plain records in
  the lender too, as 5e-2014's "deafened" is) against the borrower's, its
  threat `tier` (one of `combat.threat.tiers`), and its `sheet`'s fields,
  lists, skills, saves and tiers (a sense is not a name gmtags declares
  anywhere, so it is kept as written).
- A note names the borrowing catalog's path (`catalogs.N`) and, for an entry
  left out, the entry and the first thing it names that is missing.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pydantic import ValidationError

from gmtags.errors import Problem, RulesetError
from gmtags.log import get_logger
from gmtags.ruleset.catalogs import BorrowSheet, Catalog, CatalogEntry
from gmtags.ruleset.model import Borrowed, BorrowNote, Ruleset
from gmtags.ruleset.read import read_json, read_validated
from gmtags.ruleset.validate.builder import check_builder_grants
from gmtags.ruleset.validate.catalogs import (
    check_catalog_checks,
    check_catalog_contextual,
    check_catalog_mechanics,
    check_catalog_rows,
)
from gmtags.ruleset.validate.index import SheetIndex
from gmtags.ruleset.validate.items import check_item_entries

JsonObject = dict[str, Any]
Library = Sequence[str | os.PathLike[str]]


class _Left(Exception):
    """An entry that names something the borrower leaves out (the reason is its message)."""


# ---------------------------------------------------------------------------
# Finding the lender


def _ruleset_id(path: Path) -> str | None:
    """The `id` a ruleset file carries, or None when it is no readable ruleset object."""
    try:
        data = read_json(path)
    except (RulesetError, OSError):
        return None
    found = data.get("id") if isinstance(data, dict) else None
    return found if isinstance(found, str) else None


def _files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.glob("*.json") if p.is_file())
    except OSError:
        return []


def library_index(library: Library) -> dict[str, Path]:
    """Every ruleset id in `library` with the file that is its lender (module doc: the order)."""
    found: dict[str, Path] = {}
    for folder in (Path(each) for each in library):
        if not folder.is_dir():
            continue
        namespaces = sorted(p for p in folder.iterdir() if p.is_dir())
        for path in [*_files(folder), *(f for ns in namespaces for f in _files(ns))]:
            ruleset_id = _ruleset_id(path)
            if ruleset_id is not None:
                found.setdefault(ruleset_id, path)
    return found


# ---------------------------------------------------------------------------
# Reading an entry through `from.sheet`


def _ref(value: JsonObject, sheet: BorrowSheet) -> JsonObject:
    """A `{"field"}` or `{"derived"}` reference read in the borrower's ids."""
    if len(value) != 1:
        return value
    ((key, name),) = value.items()
    if key == "field" and isinstance(name, str) and name in (sheet.fields or {}):
        mapped = (sheet.fields or {})[name]
        if mapped is None:
            raise _Left(f"reads field '{name}', which from.sheet leaves out")
        return {"field": mapped}
    if key == "derived" and isinstance(name, str) and name in (sheet.refs or {}):
        return (sheet.refs or {})[name].model_dump(by_alias=True, exclude_none=True)
    return value


def _walk(value: Any, sheet: BorrowSheet) -> Any:
    """Every reference below `value` read in the borrower's ids."""
    if isinstance(value, dict):
        value = _ref(value, sheet)
        return {key: _walk(item, sheet) for key, item in value.items()}
    if isinstance(value, list):
        return [_walk(item, sheet) for item in value]
    return value


def _field_values(values: Any, sheet: BorrowSheet) -> Any:
    """A `{field: value}` object (`grants.sets`, a creature's `sheet.fields`) in the borrower's
    ids."""
    if not isinstance(values, dict):
        return values
    kept: JsonObject = {}
    for name, value in values.items():
        mapped = (sheet.fields or {}).get(name, name)
        if mapped is None:
            continue
        if isinstance(value, str):
            value = (sheet.values or {}).get(name, {}).get(value, value)
        kept[mapped] = value
    return kept


def _tier(value: Any, sheet: BorrowSheet) -> Any:
    return (sheet.tiers or {}).get(value, value) if isinstance(value, str) else value


def _tiers_of(values: Any, sheet: BorrowSheet) -> Any:
    if not isinstance(values, dict):
        return values
    return {name: _tier(value, sheet) for name, value in values.items()}


def _slot(value: Any, sheet: BorrowSheet) -> Any:
    slots = sheet.slots or {}
    if isinstance(value, str):
        return slots.get(value, value)
    if isinstance(value, list):
        return [_slot(item, sheet) for item in value]
    if isinstance(value, dict):
        return {slots.get(key, key): item for key, item in value.items()}
    return value


def map_entry(entry: JsonObject, sheet: BorrowSheet | None) -> JsonObject:
    """A lender's entry read in the borrower's ids (module doc); `_Left` when it cannot be."""
    mapped: JsonObject = copy.deepcopy(entry)
    if sheet is None:
        return mapped
    mapped = _walk(mapped, sheet)
    grants = mapped.get("grants")
    if isinstance(grants, dict):
        if "sets" in grants:
            grants["sets"] = _field_values(grants["sets"], sheet)
        trained = grants.get("trained")
        if isinstance(trained, dict):
            trained["tier"] = _tier(trained.get("tier"), sheet)
            trained = {k: v for k, v in trained.items() if v is not None}
            for choice in trained.get("choose") or ():
                for key in ("tier", "held"):
                    if isinstance(choice, dict) and key in choice:
                        choice[key] = _tier(choice[key], sheet)
            grants["trained"] = trained
    creature = mapped.get("creature")
    written = creature.get("sheet") if isinstance(creature, dict) else None
    if isinstance(written, dict):
        if "fields" in written:
            written["fields"] = _field_values(written["fields"], sheet)
        for key in ("skills", "saves"):
            if key in written:
                written[key] = _tiers_of(written[key], sheet)
    item = mapped.get("item")
    if isinstance(item, dict) and "slots" in item:
        item["slots"] = _slot(item["slots"], sheet)
    return mapped


# ---------------------------------------------------------------------------
# Checking an entry against the borrower


def _conditions(ruleset: Ruleset) -> set[Any]:
    """The conditions a ruleset declares: its sheet's states and its combat conditions."""
    combat = ruleset.combat_model
    raw_conditions = combat.conditions or [] if combat is not None else []
    states = ruleset.sheet.live.states if ruleset.sheet.live is not None else None
    found = {c.get("condition") for c in raw_conditions if isinstance(c, dict)}
    return found | {state.id for state in states or ()}


def _creature_names(
    creature: Any, ruleset: Ruleset, index: SheetIndex, lender: Ruleset
) -> str | None:
    """The first name a creature uses that the borrower lacks (module doc), or None."""
    if not isinstance(creature, dict):
        return None
    tiers = {tier.id for tier in ruleset.resolution_common.proficiency_tiers}
    combat = ruleset.combat_model
    conditions = _conditions(ruleset)
    lent = _conditions(lender)
    immune = [name for name in _items(creature.get("conditionImmunities")) if name in lent]
    threat = combat.threat if combat is not None else None
    raw_tiers = threat.get("tiers") if isinstance(threat, dict) else None
    threats = {t.get("id") for t in raw_tiers or () if isinstance(t, dict)}
    sheet = creature.get("sheet")
    written: JsonObject = sheet if isinstance(sheet, dict) else {}
    checks: list[tuple[str, Iterable[Any], Iterable[Any]]] = [
        ("ability", _keys(creature.get("abilities")), index.abilities),
        ("save", _keys(creature.get("saves")), index.saves),
        ("condition", immune, conditions),
        ("threat tier", _items([creature["tier"]] if "tier" in creature else []), threats),
        ("list", _keys(written.get("lists")), index.lists),
        ("ability", _keys(written.get("abilities")), index.abilities),
        ("field", _keys(written.get("fields")), index.fields),
        ("skill", _keys(written.get("skills")), index.skills),
        ("save", _keys(written.get("saves")), index.saves),
        ("tier", _values(written.get("skills")), tiers),
        ("tier", _values(written.get("saves")), tiers),
    ]
    for what, names, known in checks:
        known = set(known)
        missing = next((name for name in names if name not in known), None)
        if missing is not None:
            return f"names {what} '{missing}', which this ruleset does not declare"
    return None


def _keys(value: Any) -> list[Any]:
    return list(value) if isinstance(value, dict) else []


def _values(value: Any) -> list[Any]:
    return list(value.values()) if isinstance(value, dict) else []


def _items(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


_PASSES = (
    check_catalog_checks,
    check_catalog_contextual,
    check_catalog_mechanics,
    check_catalog_rows,
    check_item_entries,
    check_builder_grants,
)
"""The passes over inline entries a borrowed entry is held to, as if written in the borrower."""

_ENTRY_PATH = re.compile(r"^catalogs\.(\d+)\.entries\.(\d+)(\.|$)")


def _cross_problems(
    ruleset: Ruleset, position: int, header: JsonObject, entries: list[JsonObject]
) -> dict[int, str]:
    """The first cross-reference problem of each entry, read as if written in the borrower."""

    catalogs = [dict(raw) for raw in ruleset.catalogs or ()]
    catalogs[position] = {**header, "entries": entries}
    values = {name: getattr(ruleset, name) for name in type(ruleset).model_fields}
    values["catalogs"] = catalogs
    probe = Ruleset.model_construct(_fields_set=ruleset.model_fields_set, **values)
    index = SheetIndex.of_sheet(probe)
    problems = [problem for check in _PASSES for problem in check(probe, index)]
    found: dict[int, str] = {}
    for problem in problems:
        match = _ENTRY_PATH.match(problem.path)
        if match is not None and int(match.group(1)) == position:
            where = problem.path[match.end(2) :].lstrip(".")
            found.setdefault(int(match.group(2)), f"{where or 'it'}: {problem.message}")
    return found


def _shape(header: JsonObject, entry: JsonObject) -> str | None:
    """The first problem of `entry` alone and against the catalog's header, or None."""
    try:
        Catalog.model_validate({**header, "entries": [entry]})
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"][2:])
        return f"{where or 'it'}: {first['msg']}"
    return None


# ---------------------------------------------------------------------------
# The whole catalog


def _header(raw: JsonObject, lent: JsonObject) -> JsonObject:
    """The borrower's header without `from` or entries; the lender's filters and units if none."""
    header = {key: value for key, value in raw.items() if key not in ("from", "entries")}
    for key in ("filters", "units"):
        if key not in header and key in lent:
            header[key] = lent[key]
    return header


@dataclass
class _Reading:
    """One borrowing catalog being read: where it is, and what it found."""

    ruleset: Ruleset
    position: int
    notes: list[BorrowNote]
    problems: list[Problem]

    @property
    def at(self) -> str:
        return f"catalogs.{self.position}"

    def note(self, message: str) -> None:
        note = BorrowNote(self.at, message)
        self.notes.append(note)
        get_logger().warning(
            "borrowed_catalog", ruleset=self.ruleset.id, path=note.path, note=message
        )


def _lent(
    reading: _Reading, catalog: Catalog, lenders: Mapping[str, Path]
) -> tuple[Ruleset, JsonObject] | None:
    """The lender's catalog JSON, or None with a note or a problem (module doc)."""
    borrow = catalog.from_
    assert borrow is not None
    path = lenders.get(borrow.ruleset)
    if path is None:
        reading.note(
            f"ruleset '{borrow.ruleset}' is not installed: catalog '{catalog.id}' is empty"
        )
        return None
    try:
        lender = read_validated(path)
    except (RulesetError, OSError) as error:
        first = (
            f" ({error.problems[0]})" if isinstance(error, RulesetError) and error.problems else ""
        )
        reading.note(
            f"ruleset '{borrow.ruleset}' at {path} is invalid{first}: the catalog is empty"
        )
        return None
    lent = next((c for c in lender.catalogs or () if c.get("id") == borrow.catalog), None)
    if lent is None:
        reading.note(f"ruleset '{borrow.ruleset}' has no catalog '{borrow.catalog}': it is empty")
        return None
    if "from" in lent:
        message = f"catalog '{borrow.catalog}' of '{borrow.ruleset}' borrows in turn; a catalog"
        reading.problems.append(
            Problem(f"{reading.at}.from.catalog", f"{message} borrows only one that does not")
        )
        return None
    holds = lent.get("holds", "rows")
    if holds != catalog.holds:
        message = (
            f"catalog '{borrow.catalog}' of '{borrow.ruleset}' holds {holds}, not {catalog.holds}"
        )
        reading.problems.append(Problem(f"{reading.at}.holds", message))
        return None
    if "entries" not in lent:
        reading.note(
            f"catalog '{borrow.catalog}' of '{borrow.ruleset}' keeps its entries in an asset"
        )
        return None
    return lender, lent


def _read_catalog(
    reading: _Reading, raw: JsonObject, catalog: Catalog, lenders: Mapping[str, Path]
) -> Catalog:
    """The borrowing catalog with the lender's entries read against the borrower (module doc)."""
    own = list(catalog.entries or ())
    found = _lent(reading, catalog, lenders)
    if found is None:
        return catalog.model_copy(update={"entries": []})
    lender, lent = found
    header = _header(raw, lent)
    assert catalog.from_ is not None
    sheet = catalog.from_.sheet
    kept: list[JsonObject] = []
    for entry in lent["entries"]:
        label = entry.get("id")
        try:
            mapped = map_entry(entry, sheet)
        except _Left as left:
            reading.note(f"entry '{label}' is left out: it {left}")
            continue
        reason = _shape(header, mapped)
        if reason is not None:
            reading.note(f"entry '{label}' is left out: {reason}")
            continue
        kept.append(mapped)
    index_problems = _cross_problems(reading.ruleset, reading.position, header, kept)
    index = SheetIndex.of_sheet(reading.ruleset)
    entries: list[CatalogEntry] = []
    for number, mapped in enumerate(kept):
        reason = index_problems.get(number)
        if reason is None:
            creature = _creature_names(mapped.get("creature"), reading.ruleset, index, lender)
            reason = f"creature: {creature}" if creature is not None else None
        if reason is not None:
            reading.note(f"entry '{mapped.get('id')}' is left out: {reason}")
            continue
        entries.append(CatalogEntry.model_validate(mapped))
    replacing = {entry.id: entry for entry in own}
    merged = [replacing.pop(entry.id, entry) for entry in entries]
    merged += [entry for entry in own if entry.id in replacing]
    base = Catalog.model_validate({**header, "entries": []})
    return base.model_copy(update={"entries": merged, "from_": catalog.from_})


def borrow_catalogs(ruleset: Ruleset, library: Library = ()) -> Borrowed:
    """Every borrowing catalog of `ruleset` read from its lender in `library` (module doc).

    `ruleset` is a validated file's. Never raises on what a lender holds: what it
    leaves out is in `notes`; `problems` are the refusals `load_ruleset` raises.
    """
    borrowing = [
        (position, catalog)
        for position, catalog in enumerate(ruleset.catalog_models)
        if catalog.from_ is not None and catalog.from_.ruleset != ruleset.id
    ]
    if not borrowing:
        return Borrowed()
    lenders = library_index(library)
    notes: list[BorrowNote] = []
    problems: list[Problem] = []
    read: dict[str, Catalog] = {}
    raws = ruleset.catalogs or []
    for position, catalog in borrowing:
        reading = _Reading(ruleset, position, notes, problems)
        read[catalog.id] = _read_catalog(reading, raws[position], catalog, lenders)
    return Borrowed(MappingProxyType(read), tuple(notes), tuple(problems))
