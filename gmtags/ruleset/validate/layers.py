"""SCHEMA-NOTES §12, 002 and 000: what a layer names in the rest of the file.

The shapes of `layers`, the rules inside one layer and across the section
(ids unique, `conflicts` naming layers of the file, never itself) are the
models' (`gmtags.ruleset.layers`); these passes read the typed
`Ruleset.layer_models` and check what needs the sheet, the catalogs, the
items and the resolution.

Decisions where the notes and the seeds are silent:
- `fields[].id` names a field of the character sheet (the party sheet is not
  in the schema the notes describe);
- the old default a removal needs a new one for is the field's `default`,
  else its first value (SCHEMA-NOTES §6: the blank-build default of an enum);
- `currencies` is checked against `items.currencies` as far as that raw JSON
  shows families and units (`items` is not modelled yet); a file without
  currencies has none for a layer to remove.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from gmtags.errors import Problem
from gmtags.ruleset.catalogs import CatalogFilter
from gmtags.ruleset.layers import Hide
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.resolution import ladder_adapter
from gmtags.ruleset.sheet import EnumField, HideWhen
from gmtags.ruleset.validate.index import SheetIndex
from gmtags.ruleset.validate.resolution import below, invalid


def check_layer_ladders(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """SCHEMA-NOTES §12: a layer's `difficultyLadder` replaces the base one, in the kind's shape.

    Each rung is checked like the resolution's own (000: a pool rung's
    target only when the target can move; dice-highest `dc` up to keep ×
    sides; symbol-pool `dc` up to difficulty.max).
    """
    rules = ruleset.resolution_rules
    problems: list[Problem] = []
    for position, layer in enumerate(ruleset.layers or []):
        ladder = layer.get("difficultyLadder")
        if ladder is None:
            continue
        at = f"layers.{position}.difficultyLadder"
        try:
            rungs = ladder_adapter(rules.rung).validate_python(ladder)
        except ValidationError as error:
            problems += invalid(error, at)
            continue
        problems += below(at, rules.ladder_rules(rungs))
    return problems


def _hide_rules(ruleset: Ruleset) -> Iterator[tuple[str, HideWhen]]:
    """Every `hideWhen` of the character sheet, with its JSON path (002, "hideWhen oculta…":
    fields, derived values, lists, pools, simple tracks and live states)."""
    sheet, live = ruleset.sheet, ruleset.sheet.live
    places: tuple[tuple[str, Any], ...] = (
        ("sheet.fields", sheet.fields),
        ("sheet.derived", sheet.derived),
        ("sheet.lists", sheet.lists),
        ("sheet.live.pools", live.pools),
        ("sheet.live.tracks", live.tracks),
        ("sheet.live.states", live.states),
    )
    for base, items in places:
        for position, item in enumerate(items):
            rule = getattr(item, "hide_when", None)
            if rule is not None:
                yield f"{base}.{position}.hideWhen", rule


def check_layer_fields(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """SCHEMA-NOTES §12 and 002: what a layer's `fields` entry removes from an enum field.

    The field is an enum field of the sheet; every removed value is one of
    its values; at least one value is left; removing the default (its
    `default`, else its first value) needs a new `default`, which is a value
    left. 002, "hideWhen oculta…": "Una capa no puede retirar un valor con el
    que compare cualquiera de ellas", so no removed value is one a `hideWhen`
    on that field compares with. (002, "Números que lo siguen.": a value an
    `enumTable` has a row for may go; that row is then never read.)
    """
    compared: dict[str, dict[str, str]] = {}
    for at, rule in _hide_rules(ruleset):
        for key, value in rule.compared():
            if isinstance(value, str):
                compared.setdefault(rule.field, {}).setdefault(value, f"{at}.{key}")
    problems: list[Problem] = []
    for position, layer in enumerate(ruleset.layer_models):
        for item, change in enumerate(layer.fields or ()):
            at = f"layers.{position}.fields.{item}"
            field = index.fields.get(change.id)
            if field is None:
                problems.append(Problem(f"{at}.id", f"names no field '{change.id}'"))
                continue
            if not isinstance(field, EnumField):
                problems.append(Problem(f"{at}.id", f"field '{change.id}' is not an enum field"))
                continue
            tested = compared.get(change.id, {})
            for number, value in enumerate(change.remove_values):
                where = f"{at}.removeValues.{number}"
                if value not in field.values:
                    problems.append(Problem(where, f"field '{change.id}' has no value '{value}'"))
                elif value in tested:
                    problems.append(
                        Problem(
                            where,
                            f"'{value}' is compared by the hideWhen at {tested[value]}, and a "
                            "layer cannot remove a value a hideWhen compares with",
                        )
                    )
            left = [value for value in field.values if value not in change.remove_values]
            if not left:
                message = f"removes every value of field '{change.id}'; one must be left"
                problems.append(Problem(f"{at}.removeValues", message))
                continue
            old = field.default if field.default is not None else field.values[0]
            if change.default is None and old in change.remove_values:
                message = f"removes the default '{old}' of field '{change.id}', so it names one"
                problems.append(Problem(at, message))
            if change.default is not None and change.default not in field.values:
                message = f"field '{change.id}' has no value '{change.default}'"
                problems.append(Problem(f"{at}.default", message))
    return problems


def _filter_problem(
    found: CatalogFilter | None, catalog: str, hide: Hide
) -> tuple[str, str] | None:
    """Where a hide rule's comparison does not fit its filter, and why."""
    if found is None:
        return "filter", f"catalog '{catalog}' declares no filter '{hide.filter}'"
    if hide.numeric and found.type != "number":
        return hide.key, f"filter '{found.id}' is {found.type}: above and below compare numbers"
    if not hide.numeric and found.type == "number":
        return hide.key, f"filter '{found.id}' is a number: equals and notIn compare words"
    return None


def check_layer_catalogs(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """SCHEMA-NOTES §12: `catalogs[].id` is a catalog of the file, `hide.filter` one of its
    filters, `above`/`below` only on a number filter and `equals`/`notIn` only on a text or
    tags filter."""
    catalogs = {catalog.id: catalog for catalog in ruleset.catalog_models}
    problems: list[Problem] = []
    for position, layer in enumerate(ruleset.layer_models):
        for item, rule in enumerate(layer.catalogs or ()):
            at = f"layers.{position}.catalogs.{item}"
            catalog = catalogs.get(rule.id)
            if catalog is None:
                problems.append(Problem(f"{at}.id", f"names no catalog '{rule.id}'"))
                continue
            filters = {found.id: found for found in catalog.filters or ()}
            wrong = _filter_problem(filters.get(rule.hide.filter), catalog.id, rule.hide)
            if wrong is not None:
                problems.append(Problem(f"{at}.hide.{wrong[0]}", wrong[1]))
    return problems


@dataclass(frozen=True, slots=True)
class _Currencies:
    """What `items.currencies` declares, as far as its raw JSON shows: family ids, unit ids,
    and each family's unit worth 1 (SCHEMA-NOTES §10: "each family needs a unit worth 1")."""

    families: frozenset[str]
    units: frozenset[str]
    base: dict[str, str]


def _currencies(ruleset: Ruleset) -> _Currencies | None:
    """The currencies of the file (None when it declares none)."""
    currencies = ruleset.items.get("currencies") if ruleset.items is not None else None
    if not isinstance(currencies, list) or not currencies:
        return None
    families: set[str] = set()
    units: set[str] = set()
    base: dict[str, str] = {}
    for family in currencies:
        family_id = family.get("id") if isinstance(family, dict) else None
        if not isinstance(family, dict) or not isinstance(family_id, str):
            continue
        families.add(family_id)
        listed = family.get("units")
        for unit in listed if isinstance(listed, list) else ():
            if isinstance(unit, dict) and isinstance(unit.get("id"), str):
                units.add(unit["id"])
                if unit.get("value") == 1 and not isinstance(unit.get("value"), bool):
                    base.setdefault(unit["id"], family_id)
    return _Currencies(frozenset(families), frozenset(units), base)


def check_layer_currencies(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """SCHEMA-NOTES §12 and §10: `currencies.removeFamilies` names families and `removeUnits`
    units of `items.currencies`; without currencies in the file there is nothing to remove.

    §10: "each family needs a unit worth 1", so a layer that removes that unit removes its
    family too (else the game would play a family no file could hold).
    """
    declared = _currencies(ruleset)
    problems: list[Problem] = []
    for position, layer in enumerate(ruleset.layer_models):
        removed = layer.currencies
        if removed is None:
            continue
        at = f"layers.{position}.currencies"
        if declared is None:
            problems.append(Problem(at, "the file declares no currencies (items.currencies)"))
            continue
        for key, named, known, what in (
            ("removeFamilies", removed.remove_families, declared.families, "currency family"),
            ("removeUnits", removed.remove_units, declared.units, "currency unit"),
        ):
            problems += [
                Problem(f"{at}.{key}.{number}", f"names no {what} '{name}'")
                for number, name in enumerate(named or ())
                if name not in known
            ]
        gone = set(removed.remove_families or ())
        for number, unit in enumerate(removed.remove_units or ()):
            family = declared.base.get(unit)
            if family is not None and family not in gone:
                message = (
                    f"'{unit}' is the unit worth 1 of family '{family}', which needs one: "
                    "remove the family (removeFamilies) or keep the unit"
                )
                problems.append(Problem(f"{at}.removeUnits.{number}", message))
    return problems
