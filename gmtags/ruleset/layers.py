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

Play (`effective_ruleset`: the ruleset a game with these layers plays by) is
`gmtags.ruleset.played`, above the ruleset model; a new game's start with its
layers is `gmtags.state.layers`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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

from gmtags.ruleset.base import PROMPT_SAFE, PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.refs import Number
from gmtags.ruleset.resolution.common import Found, LineError, detail, distinct, problems_of
from gmtags.ruleset.sheet import EnumValue, unique

if TYPE_CHECKING:
    pass

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


__all__ = [
    "LAYERS",
    "MAX_LAYERS",
    "Hide",
    "Layer",
    "LayerCatalog",
    "LayerCurrencies",
    "LayerField",
    "LayerGm",
    "parse_layers",
]
