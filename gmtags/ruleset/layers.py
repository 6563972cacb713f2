"""The `layers` section and the ruleset a game plays with its active layers (SPEC §4).

A layer is a variant of the rules the ruleset ships in its own file, turned on
when a game is created (`rulesetLayers` in the snapshot, `--layers` on the
command line). SCHEMA-NOTES §12 is the authority on its shape:
`{id, label, summary?, conflicts?, gm?, fields?, difficultyLadder?, catalogs?,
currencies?}`, every part strict. A layer only narrows and appends: it removes
enum values (never adds one), replaces the difficulty ladder with one of the
base kind's shape, hides catalog entries, removes currencies, and adds GM
guidance after the base text.

Import: the models here refuse what one layer holds (unknown keys, ids,
counts, prompt-safe text, `gm` guidance of at most 4,000 characters together,
a layer that conflicts with itself, one `hide` comparison); `parse_layers`
adds what needs the whole section (ids unique, SCHEMA-NOTES §1; `conflicts`
name layers of the file). What needs the rest of the file (the enum fields,
`hideWhen`, the catalogs, the currencies, the ladder's kind) is checked by
`gmtags.ruleset.validate.layers`. `Ruleset.layers` stays the JSON the file
holds; `Ruleset.layer_models` is what `parse_layers` gives, parsed once.

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
from typing import TYPE_CHECKING, Annotated, Any, Self

from pydantic import (
    AfterValidator,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gmtags.errors import GmtagsError
from gmtags.ruleset.base import PROMPT_SAFE, PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.catalogs import CatalogEntry
from gmtags.ruleset.refs import Number
from gmtags.ruleset.resolution.common import Found, LineError, detail, distinct, problems_of
from gmtags.ruleset.sheet import EnumField, EnumValue, unique
from gmtags.state.snapshot import Snapshot

if TYPE_CHECKING:
    from gmtags.ruleset.model import Ruleset

JsonObject = dict[str, Any]

MAX_LAYERS = 12
"""SCHEMA-NOTES §2: `layers` holds at most 12."""

GUIDANCE_LENGTH = 4000
"""SCHEMA-NOTES §12: a layer's `gm.guidance` and `gm.worldGuidance` are at most 4,000 together."""


PromptSafe300 = Annotated[str, StringConstraints(max_length=300), PROMPT_SAFE]
Guidance = Annotated[str, StringConstraints(max_length=GUIDANCE_LENGTH), PROMPT_SAFE]
FilterWord = Annotated[str, StringConstraints(max_length=80)]
"""SCHEMA-NOTES §9: a text or tags filter's value is a string of at most 80."""


def _raise(found: Found, title: str) -> None:
    """Raise every problem in `found` at once, each at its location below the model."""
    if found:
        raise ValidationError.from_exception_data(
            title, [detail(loc, "layer_rule", message, None) for loc, message in found]
        )


# ---------------------------------------------------------------------------
# One layer (SCHEMA-NOTES §12)


class LayerGm(RulesetModel):
    """`gm{guidance?, worldGuidance?}`: prompt-safe text, at most 4,000 characters together.

    `guidance` follows the base check paragraph in play; `worldGuidance` is for
    world setup, which gmtags does not run (kept, validated, not read).
    """

    guidance: Guidance | None = None
    world_guidance: Guidance | None = Field(default=None, alias="worldGuidance")

    @model_validator(mode="after")
    def _together(self) -> Self:
        total = len(self.guidance or "") + len(self.world_guidance or "")
        if total > GUIDANCE_LENGTH:
            raise PydanticCustomError(
                "layer_guidance",
                "guidance and worldGuidance are at most {limit} characters together ({total})",
                {"limit": GUIDANCE_LENGTH, "total": total},
            )
        return self


class LayerField(RulesetModel):
    """`fields[]`: `{id (an enum field), removeValues (1–40), default?}`.

    SCHEMA-NOTES §12: "A layer may only remove enum values, never add them";
    the field, its values, the one left and the new default are checked
    against the sheet by `validate.layers.check_layer_fields`. The new default
    is never a value the same entry removes.
    """

    id: SheetId
    remove_values: Annotated[
        list[EnumValue], Field(min_length=1, max_length=40), AfterValidator(unique)
    ] = Field(alias="removeValues")
    default: EnumValue | None = None

    @model_validator(mode="after")
    def _default_kept(self) -> Self:
        if self.default is not None and self.default in self.remove_values:
            raise PydanticCustomError(
                "layer_default", "the new default is a value this entry removes"
            )
        return self


class Hide(RulesetModel):
    """`hide{filter, one of above|below|equals|notIn}` (SCHEMA-NOTES §12).

    `above`/`below` for a number filter, `equals`/`notIn` for a text or tags
    filter (the filter's type is checked by `validate.layers`).
    """

    filter: SheetId
    above: Number | None = None
    below: Number | None = None
    equals: FilterWord | None = None
    not_in: Annotated[list[FilterWord], Field(min_length=1, max_length=24)] | None = Field(
        default=None, alias="notIn"
    )

    @model_validator(mode="after")
    def _one_comparison(self) -> Self:
        given = [
            key for key in ("above", "below", "equals", "not_in") if getattr(self, key) is not None
        ]
        if len(given) != 1:
            raise PydanticCustomError(
                "layer_hide", "hide takes exactly one of above, below, equals or notIn"
            )
        return self

    @property
    def numeric(self) -> bool:
        """True for `above`/`below`, which compare numbers."""
        return self.above is not None or self.below is not None

    @property
    def key(self) -> str:
        """The comparison given, as the file spells it."""
        for name in ("above", "below", "equals"):
            if getattr(self, name) is not None:
                return name
        return "notIn"

    def hides(self, value: object) -> bool:
        """Whether an entry whose value for the filter is `value` is hidden (module doc)."""
        if value is None:
            return False
        if self.numeric:
            if isinstance(value, bool) or not isinstance(value, int | float):
                return False
            if self.above is not None:
                return value > self.above
            assert self.below is not None
            return value < self.below
        words = value if isinstance(value, list) else [value]
        if self.equals is not None:
            return self.equals in words
        assert self.not_in is not None
        return not any(word in self.not_in for word in words)


class LayerCatalog(RulesetModel):
    """`catalogs[]`: `{id (a catalog of the file), hide}`: the entries the layer hides."""

    id: SheetId
    hide: Hide


class LayerCurrencies(RulesetModel):
    """`currencies{removeUnits?, removeFamilies?}`: ids from `items.currencies` (SCHEMA-NOTES §10:
    at most 6 families of 1–10 units)."""

    remove_units: (
        Annotated[list[SheetId], Field(min_length=1, max_length=60), AfterValidator(unique)] | None
    ) = Field(default=None, alias="removeUnits")
    remove_families: (
        Annotated[list[SheetId], Field(min_length=1, max_length=6), AfterValidator(unique)] | None
    ) = Field(default=None, alias="removeFamilies")


class Layer(RulesetModel):
    """SCHEMA-NOTES §12, one layer: a variant of the rules a game may turn on.

    `conflicts` name other layers (never this one); `fields` name a field
    once each; `difficultyLadder` stays the JSON it is, checked against the
    resolution's kind by `validate.layers.check_layer_ladders`.
    """

    id: SheetId
    label: PromptSafe80
    summary: PromptSafe300 | None = None
    conflicts: (
        Annotated[
            list[SheetId], Field(min_length=1, max_length=MAX_LAYERS - 1), AfterValidator(unique)
        ]
        | None
    ) = None
    gm: LayerGm | None = None
    fields: Annotated[list[LayerField], Field(max_length=24)] | None = None
    difficulty_ladder: Annotated[list[JsonObject], Field(min_length=1, max_length=12)] | None = (
        Field(default=None, alias="difficultyLadder")
    )
    catalogs: Annotated[list[LayerCatalog], Field(max_length=24)] | None = None
    currencies: LayerCurrencies | None = None

    @model_validator(mode="after")
    def _own_rules(self) -> Self:
        found: Found = [
            (("conflicts", position), "a layer cannot conflict with itself")
            for position, other in enumerate(self.conflicts or ())
            if other == self.id
        ]
        found += distinct([f.id for f in self.fields or ()], ("fields",), "field", ("id",))
        _raise(found, "Layer")
        return self

    def conflicts_with(self, other: Layer) -> bool:
        """Conflicts are symmetric: naming one side of the pair is enough."""
        return other.id in (self.conflicts or ()) or self.id in (other.conflicts or ())

    @property
    def guidance(self) -> str | None:
        """The text this layer adds after the base check paragraph."""
        return self.gm.guidance if self.gm is not None else None


LAYERS: TypeAdapter[list[Layer] | None] = TypeAdapter(
    Annotated[list[Layer], Field(max_length=MAX_LAYERS)] | None
)
"""The whole `layers` section, as `parse_layers` validates it."""


def parse_layers(raw: Sequence[Mapping[str, Any]] | None) -> tuple[Layer, ...]:
    """Validate the `layers` section strictly; `()` when the file has none.

    Raises `ValidationError` listing every problem at its path below `layers`:
    each layer's shape and rules, ids that repeat (SCHEMA-NOTES §1) and
    `conflicts` naming no layer of the file (§12).
    """
    if raw is None:
        return ()
    data = [dict(layer) for layer in raw]
    ids = [layer.get("id") for layer in data]
    named = {layer_id for layer_id in ids if isinstance(layer_id, str)}
    found: Found = []
    seen: set[str] = set()
    for position, layer_id in enumerate(ids):
        if isinstance(layer_id, str) and layer_id in seen:
            found.append(((position, "id"), f"layer id '{layer_id}' repeats"))
        seen.update([layer_id] if isinstance(layer_id, str) else [])
    for position, layer in enumerate(data):
        conflicts = layer.get("conflicts")
        for index, other in enumerate(conflicts if isinstance(conflicts, list) else ()):
            if isinstance(other, str) and other not in named:
                found.append(((position, "conflicts", index), f"names no layer '{other}'"))
    lines: list[LineError] = [(loc, "layer_rule", text, None) for loc, text in found]
    try:
        parsed = LAYERS.validate_python(data) or []
    except ValidationError as error:
        lines = problems_of(error) + lines
    if lines:
        raise ValidationError.from_exception_data(
            "layers", [detail(loc, kind, text, value) for loc, kind, text, value in lines]
        )
    return tuple(parsed)


# ---------------------------------------------------------------------------
# The ruleset a game plays (SPEC §4)


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


def start_layers(snapshot: Snapshot, layer_ids: Sequence[str]) -> Snapshot:
    """The snapshot a new game starts from with `layer_ids` (`--layers`, SPEC §4).

    A snapshot naming no layers gets them; one that names the same layers is
    kept; one that names others is an existing game whose layers were chosen
    when it was created, so `LayerChoiceError` says so rather than change the
    rules under it.
    """
    if not layer_ids:
        return snapshot
    if not snapshot.ruleset_layers:
        # `model_copy` does not validate: the ids are plain strings `chosen_layers` checked.
        return snapshot.model_copy(update={"ruleset_layers": tuple(layer_ids)})
    if set(snapshot.ruleset_layers) == set(layer_ids):
        return snapshot
    given = ",".join(snapshot.ruleset_layers)
    raise LayerChoiceError(
        f"--layers: the state already plays the layers {given}; "
        "--layers only sets them for a new game"
    )


def layered_start(ruleset: Ruleset, snapshot: Snapshot, written: str | None) -> Snapshot:
    """`--layers` (None: not given) applied to the start `snapshot` of a new game: the ids
    checked by `chosen_layers`, then set by `start_layers`; `LayerChoiceError` says why not."""
    if written is None:
        return snapshot
    return start_layers(snapshot, chosen_layers(ruleset, written))


__all__ = [
    "LAYERS",
    "Hide",
    "Layer",
    "LayerCatalog",
    "LayerChoiceError",
    "LayerCurrencies",
    "LayerField",
    "LayerGm",
    "Played",
    "active_layers",
    "chosen_layers",
    "effective_ruleset",
    "layered_start",
    "parse_layers",
    "start_layers",
]
