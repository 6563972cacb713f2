"""The ruleset a game plays with its active layers (SPEC §4; the section: `ruleset.layers`).

Play: `effective_ruleset(ruleset, layer_ids)` derives the ruleset a game
with those layers plays by, once per ruleset and set of ids, and every stage
reads that one (`process`, `StreamProcessor`, `gm_instructions`):
- the last active layer with a `difficultyLadder` replaces `resolution`'s
  (SCHEMA-NOTES §12: "REPLACES the base ladder");
- each `fields` entry removes values from an enum field and may name its new
  default, so a card that stores a removed value reads the field's (new)
  default wherever enum values are read, `hideWhen` included (002: "un valor
  enum que el conjunto ya no ofrece es el predeterminado del campo"; "Esa
  fila nunca se lee mientras la capa está activa"); the card is never
  rewritten;
- `catalogs` hide entries: the effective catalogs leave them out, so `use=`
  (a check's and `op="use"`) and `apply=` do not offer them; what an entry
  already picked gave stays on the card and keeps counting (004: "una que
  ocultan las capas de una partida sigue contando por lo que dio"), and the
  hidden entries stay readable as `Ruleset.hidden_entries`;
- `gm.guidance` follows the base check paragraph, joined by a space
  (`Ruleset.layer_guidance`; SCHEMA-NOTES §12: "added after the base text,
  not in place of it");
- `currencies` are removed from the effective `items` JSON (items are not
  executed in this version: the removal is kept in the JSON for when they are).

Decisions where the sources are silent (following the reference engine's
design notes where it has one):
- Layers apply in the file's declaration order, whatever order a game names
  them in. Of two active layers in conflict (either one naming the other), the
  later declared is not applied (the 5e reference file: "it is this one that
  is dropped and the same two choices always give the same rules").
- An id a snapshot names that the file has no layer for is ignored: a game
  must stay playable when its ruleset drops a layer (the snapshot knows no
  ruleset to be refused against). `--layers` for a new game refuses unknown
  ids and conflicting pairs (`chosen_layers`).
- Two layers on the same field apply one after the other; a later one that
  would leave the field no value, or whose default (its own, else the field's
  current one) is a value already gone, is not applied at all.
- A hide rule compares the entry's value for that filter: a number `above`
  (greater than) or `below` (less than); a text `equals` or `notIn` (not one
  of); a tags filter `equals` one of the entry's tags or `notIn`: none of its
  tags is in the list. An entry without a value for the filter is not hidden.
  Only entries written in the file are hidden (an asset's are not loaded).
- A layer that removes a family's unit worth 1 removes the family too
  (`validate.layers.check_layer_currencies`; SCHEMA-NOTES §10: "each family
  needs a unit worth 1").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from gmtags.errors import GmtagsError
from gmtags.ruleset.catalogs import CatalogEntry
from gmtags.ruleset.layers import Hide, Layer, LayerField
from gmtags.ruleset.model import Played, Ruleset
from gmtags.ruleset.sheet import EnumField

JsonObject = dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Enum:
    """An enum field's values and default as the layers applied so far leave them."""

    values: tuple[str, ...]
    default: str | None

    @property
    def shown_default(self) -> str:
        """The value a blank or removed value reads as (SCHEMA-NOTES §6: else the first)."""
        return self.default if self.default is not None else self.values[0]


def _narrowed(enum: _Enum, change: LayerField) -> _Enum | None:
    """`enum` after one `fields` entry, or None when the entry does not fit (module doc)."""
    left = tuple(value for value in enum.values if value not in change.remove_values)
    if not left:
        return None
    if change.default is not None:
        return _Enum(left, change.default) if change.default in left else None
    if enum.shown_default not in left:
        return None
    return _Enum(left, enum.default)


def _enums(ruleset: Ruleset) -> dict[str, _Enum]:
    return {
        field.id: _Enum(tuple(field.values), field.default)
        for field in ruleset.sheet.fields
        if isinstance(field, EnumField)
    }


def _fitted(
    ruleset: Ruleset, layer_ids: Iterable[str]
) -> tuple[tuple[Layer, ...], dict[str, _Enum]]:
    """The layers a game naming `layer_ids` plays, in declaration order, and its enum fields.

    Unknown ids are ignored; of a conflicting pair the later declared goes; a
    layer whose field changes do not fit on the ones before it is not applied.
    """
    wanted = set(layer_ids)
    enums = _enums(ruleset)
    chosen: list[Layer] = []
    for layer in ruleset.layer_models:
        if layer.id not in wanted or any(layer.conflicts_with(other) for other in chosen):
            continue
        after = dict(enums)
        for change in layer.fields or ():
            current = after.get(change.id)
            narrowed = None if current is None else _narrowed(current, change)
            if narrowed is None:
                break
            after[change.id] = narrowed
        else:
            chosen.append(layer)
            enums = after
    return tuple(chosen), enums


def active_layers(ruleset: Ruleset, layer_ids: Iterable[str]) -> tuple[Layer, ...]:
    """The layers a game naming `layer_ids` plays, in the file's order (module doc)."""
    return _fitted(ruleset.base_ruleset, layer_ids)[0]


def _sheet_changes(ruleset: Ruleset, enums: Mapping[str, _Enum]) -> dict[str, Any]:
    """The `sheet` whose enum fields hold what the layers leave (each field re-validated)."""
    fields: list[Any] = []
    changed = False
    for field in ruleset.sheet.fields:
        enum = enums.get(field.id) if isinstance(field, EnumField) else None
        if (
            not isinstance(field, EnumField)
            or enum is None
            or enum == _Enum(tuple(field.values), field.default)
        ):
            fields.append(field)
            continue
        data = field.model_dump(by_alias=True, exclude_unset=True)
        data["values"] = list(enum.values)
        data.pop("default", None)
        if enum.default is not None:
            data["default"] = enum.default
        if field.value_labels is not None:
            data["valueLabels"] = {
                value: label for value, label in field.value_labels.items() if value in enum.values
            }
        fields.append(EnumField.model_validate(data))
        changed = True
    if not changed:
        return {}
    return {"sheet": ruleset.sheet.model_copy(update={"fields": fields})}


def _hidden(ruleset: Ruleset, layers: Sequence[Layer]) -> dict[str, CatalogEntry]:
    """Every inline catalog entry an active layer hides, by `catalog/entry`."""
    rules: dict[str, list[Hide]] = {}
    for layer in layers:
        for item in layer.catalogs or ():
            rules.setdefault(item.id, []).append(item.hide)
    hidden: dict[str, CatalogEntry] = {}
    for catalog in ruleset.catalog_models:
        for hide in rules.get(catalog.id, ()):
            for entry in catalog.entries or ():
                if hide.hides((entry.filters or {}).get(hide.filter)):
                    hidden.setdefault(f"{catalog.id}/{entry.id}", entry)
    return hidden


def _catalog_changes(ruleset: Ruleset, hidden: Mapping[str, CatalogEntry]) -> dict[str, Any]:
    """The `catalogs` JSON without the hidden entries (its typed view is parsed from it)."""
    if not hidden or ruleset.catalogs is None:
        return {}
    catalogs: list[JsonObject] = []
    for raw in ruleset.catalogs:
        entries = raw.get("entries")
        if isinstance(entries, list):
            kept = [e for e in entries if f"{raw.get('id')}/{e.get('id')}" not in hidden]
            raw = {**raw, "entries": kept}
        catalogs.append(raw)
    return {"catalogs": catalogs}


def _currency_changes(ruleset: Ruleset, layers: Sequence[Layer]) -> dict[str, Any]:
    """The `items` JSON without the currencies the layers remove (items are not executed yet)."""
    units = {u for layer in layers if layer.currencies for u in layer.currencies.remove_units or ()}
    families = {
        f for layer in layers if layer.currencies for f in layer.currencies.remove_families or ()
    }
    items = ruleset.items
    currencies = items.get("currencies") if items is not None else None
    if items is None or not isinstance(currencies, list) or not (units or families):
        return {}
    kept: list[Any] = []
    for family in currencies:
        if isinstance(family, dict):
            if family.get("id") in families:
                continue
            if isinstance(family.get("units"), list):
                family = {**family, "units": [u for u in family["units"] if not _named(u, units)]}
        kept.append(family)
    changed = {key: value for key, value in items.items() if key != "currencies"}
    if kept:
        changed["currencies"] = kept
    return {"items": changed}


def _named(unit: object, ids: set[str]) -> bool:
    return isinstance(unit, dict) and unit.get("id") in ids


def _played(base: Ruleset, layers: tuple[Layer, ...], enums: Mapping[str, _Enum]) -> Ruleset:
    """Derive the ruleset `layers` make of `base` (module doc), every changed part validated."""
    changes: dict[str, Any] = {}
    ladder = next(
        (layer.difficulty_ladder for layer in reversed(layers) if layer.difficulty_ladder), None
    )
    if ladder is not None:
        changes["resolution"] = {**base.resolution, "difficultyLadder": ladder}
    changes.update(_sheet_changes(base, enums))
    hidden = _hidden(base, layers)
    changes.update(_catalog_changes(base, hidden))
    changes.update(_currency_changes(base, layers))
    played = base.played_with(Played(base, layers, MappingProxyType(hidden)), changes)
    # Parse (and so validate) the changed sections now, once, never mid-response.
    _ = (played.resolution_rules, played.catalog_models)
    return played


def effective_ruleset(ruleset: Ruleset, layer_ids: Iterable[str]) -> Ruleset:
    """The ruleset a game whose `rulesetLayers` are `layer_ids` plays by (SPEC §4).

    No ids, or none that applies, give `ruleset` itself (the same object, so
    a game without layers costs nothing more); otherwise the ruleset derived
    from the file's (`ruleset.base_ruleset`) with the active layers applied,
    built once per ruleset and set of ids and kept while the ruleset lives.
    """
    if not layer_ids:
        return ruleset
    wanted = frozenset(layer_ids)
    base = ruleset.base_ruleset
    cache = base.layered_cache
    found = cache.get(wanted)
    if found is None or found.base_ruleset is not base:  # (a copy may share the cache)
        layers, enums = _fitted(base, wanted)
        key = frozenset(layer.id for layer in layers)
        found = cache.get(key)
        if found is None or found.base_ruleset is not base:
            found = _played(base, layers, enums) if layers else base
        cache[key] = cache[wanted] = found
    return found


# ---------------------------------------------------------------------------
# Layers chosen for a new game (`--layers`, SPEC §4)


class LayerChoiceError(GmtagsError, ValueError):
    """Layers chosen for a new game that the ruleset cannot play: one line naming why."""


def chosen_layers(ruleset: Ruleset, written: str) -> tuple[str, ...]:
    """`--layers a,b`: the ids named, checked against the file (order kept, repeats dropped).

    An id the file has no layer for, or two layers in conflict, is refused
    with `LayerChoiceError` naming them: a new game starts on the rules the
    player chose or not at all (SPEC §4; the reference refuses both when a
    game is created).
    """
    ids = tuple(dict.fromkeys(part.strip() for part in written.split(",") if part.strip()))
    known = {layer.id: layer for layer in ruleset.layer_models}
    unknown = [layer_id for layer_id in ids if layer_id not in known]
    if unknown:
        offered = ", ".join(known) if known else "none"
        names = ", ".join(f"'{layer_id}'" for layer_id in unknown)
        raise LayerChoiceError(
            f"--layers: ruleset '{ruleset.id}' has no layer {names} (its layers: {offered})"
        )
    picked = [known[layer_id] for layer_id in ids]
    for position, layer in enumerate(picked):
        for other in picked[position + 1 :]:
            if layer.conflicts_with(other):
                raise LayerChoiceError(
                    f"--layers: layers '{layer.id}' and '{other.id}' conflict: choose one"
                )
    return ids


__all__ = ["LayerChoiceError", "active_layers", "chosen_layers", "effective_ruleset"]
