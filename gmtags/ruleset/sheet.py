"""The `sheet` section: what a character sheet holds and what changes in play.

002, "La ficha": sections, abilities, skills and saves, fields, derived values,
lists and live state (pools, tracks, text, conditions, states); 004 adds the
play-time parts of the character builder (computed abilities, counted and
filtered list sums, computed list columns, `startFrom`, row checks, list
`contextual`, the longer `advancement` list and the raised limits). The guided
`builder` itself is creation-time only: it is kept as the JSON object it is,
never dropped and never executed.

Shapes are checked here (every model is strict: unknown keys are refused);
everything that needs to look across the sheet (ids that exist, live reads,
derived order, wound-track rules) is checked by `gmtags.ruleset.validate`, so
each problem is reported with its JSON path and all of them are reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    Field,
    StringConstraints,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from gmtags.ruleset.base import PromptSafe80, PromptSafe400, RulesetModel, SheetId
from gmtags.ruleset.refs import (
    Number,
    Rounding,
    RulesetValueRef,
    Scalar,
    StepRow,
    StepTable,
    ascending_steps,
)
from gmtags.text import prompt_safe_problem

JsonObject = dict[str, Any]

# ---------------------------------------------------------------------------
# Helpers: tagged shapes with clean JSON paths


def _error(loc: tuple[str | int, ...], kind: str, message: str, value: object) -> ValidationError:
    """A validation error at `loc` below the value being validated."""
    detail = InitErrorDetails(type=PydanticCustomError(kind, message), loc=loc, input=value)
    return ValidationError.from_exception_data("sheet", [detail])


def tagged(tag: str, models: Mapping[str, type[RulesetModel]]) -> WrapValidator:
    """Validate an object by the model its `tag` key names (`type`, `op`).

    Unlike a pydantic discriminated union, a problem inside the chosen model is
    reported at its plain JSON path (`sheet.fields.3.max`, not
    `sheet.fields.3.number.max`), and an unknown tag at `….type`.
    """
    names = ", ".join(models)

    def validate(value: Any, _handler: ValidatorFunctionWrapHandler) -> Any:
        if not isinstance(value, dict):
            raise PydanticCustomError("object_type", "must be an object")
        name = value.get(tag)
        model = models.get(name) if isinstance(name, str) else None
        if model is None:
            raise _error((tag,), "unknown_tag", f"{tag} must be one of {names}", value)
        return model.model_validate(value)

    return WrapValidator(validate)


def _int_or_ref(value: Any, _handler: ValidatorFunctionWrapHandler) -> Any:
    """An integer, or a value reference object (002: a simple track's `max`)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, dict):
        return RulesetValueRef.model_validate(value)
    raise PydanticCustomError("int_or_ref", "must be an integer or a value reference")


IntOrRef = Annotated[int | RulesetValueRef, WrapValidator(_int_or_ref)]


def _unique(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise PydanticCustomError("unique_values", "values must not repeat")
    return values


def _prompt_safe(value: str) -> str:
    problem = prompt_safe_problem(value)
    if problem is not None:
        raise PydanticCustomError("prompt_safe", "prompt-safe text {problem}", {"problem": problem})
    return value


def _state_value(value: str) -> str:
    _prompt_safe(value)
    if '"' in value:
        raise PydanticCustomError(
            "state_quote", "a state value never contains a double quote (the command quotes it)"
        )
    return value


EnumValue = Annotated[str, StringConstraints(min_length=1, max_length=80)]
StateValue = Annotated[str, StringConstraints(max_length=80), AfterValidator(_state_value)]
Short = Annotated[str, StringConstraints(max_length=8), AfterValidator(_prompt_safe)]
KindLabel = Annotated[str, StringConstraints(max_length=16), AfterValidator(_prompt_safe)]
Dice40 = Annotated[str, StringConstraints(max_length=40)]

# ---------------------------------------------------------------------------
# hideWhen and untrained


class HideWhen(RulesetModel):
    """002, "hideWhen oculta un campo": hide by another field's value.

    Exactly one of `equals`, `notEquals` (hidden whenever the field holds any
    other value) or `in` (1–24 values). Each value must be one the field can
    hold (checked by `validate`).
    """

    field: SheetId
    equals: Scalar | None = None
    not_equals: Scalar | None = Field(default=None, alias="notEquals")
    in_: Annotated[list[Scalar], Field(min_length=1, max_length=24)] | None = Field(
        default=None, alias="in"
    )

    @model_validator(mode="after")
    def _one_comparison(self) -> HideWhen:
        given = [value for value in (self.equals, self.not_equals, self.in_) if value is not None]
        if len(given) != 1:
            raise PydanticCustomError(
                "hide_when", "hideWhen takes exactly one of equals, notEquals or in"
            )
        return self

    def compared(self) -> list[tuple[str, str | int | float | bool]]:
        """Every value the rule compares with, each with its JSON path below `hideWhen`."""
        if self.in_ is not None:
            return [(f"in.{index}", value) for index, value in enumerate(self.in_)]
        if self.not_equals is not None:
            return [("notEquals", self.not_equals)]
        assert self.equals is not None
        return [("equals", self.equals)]


class UntrainedBy(RulesetModel):
    """002, "Qué hace una prueba sin entrenamiento.": `{by: -20..20}` added to the number."""

    by: Annotated[int, Field(ge=-20, le=20)]


UntrainedWord = Literal["normal", "harder", "refuse"]
_UNTRAINED_WORDS = ("normal", "harder", "refuse")


def _untrained(value: Any, _handler: ValidatorFunctionWrapHandler) -> Any:
    if isinstance(value, str):
        if value not in _UNTRAINED_WORDS:
            raise PydanticCustomError("untrained", "untrained is normal, harder, refuse or {by: n}")
        return value
    if isinstance(value, dict):
        return UntrainedBy.model_validate(value)
    raise PydanticCustomError("untrained", "untrained is normal, harder, refuse or {by: n}")


Untrained = Annotated[UntrainedWord | UntrainedBy, WrapValidator(_untrained)]
"""002: `normal` (default), `{by}`, `harder` (a movable pool target only) or `refuse`.

A skill's or save's own rule wins over its section's; the rule applies only at
the first tier.
"""

# ---------------------------------------------------------------------------
# Sections, abilities, skills and saves


class _Entry(RulesetModel):
    id: SheetId
    label: PromptSafe80


class _Placed(_Entry):
    section: SheetId | None = None
    hide_when: HideWhen | None = Field(default=None, alias="hideWhen")


class Section(_Entry):
    """002, "La ficha": a heading in the editor, optionally with an `untrained` rule."""

    untrained: Untrained | None = None


class Ability(_Entry):
    """A main score; with `value` (004, 1.156) a read-only sum of 1–8 references.

    A computed score is clamped to its min and max; no computed score may read
    another, not even through a derived value (checked by `validate`).
    """

    short: Short | None = None
    min: int
    max: int
    default: int
    section: SheetId | None = None
    value: Annotated[list[RulesetValueRef], Field(min_length=1, max_length=8)] | None = None

    @model_validator(mode="after")
    def _in_order(self) -> Ability:
        if not self.min <= self.default <= self.max:
            raise PydanticCustomError("ability_range", "an ability needs min ≤ default ≤ max")
        return self


class CheckEntry(_Entry):
    """A skill or a save: the ability it rolls with, a `cap`, a section and an untrained rule.

    002, "Una habilidad o salvación puede llevar un cap": the check number is
    min(computed, cap); a cap may read live state but no skill or save modifier.
    """

    ability: SheetId | None = None
    cap: RulesetValueRef | None = None
    section: SheetId | None = None
    untrained: Untrained | None = None


Skill = CheckEntry
Save = CheckEntry


class BonusRange(RulesetModel):
    """The range of the free per-skill/save bonus (SCHEMA-NOTES §6, default -20..40)."""

    min: Annotated[int, Field(ge=-100)] = -20
    max: Annotated[int, Field(le=100)] = 40

    @model_validator(mode="after")
    def _in_order(self) -> BonusRange:
        if self.min > self.max:
            raise PydanticCustomError("bonus_range", "bonusRange needs min ≤ max")
        return self


# ---------------------------------------------------------------------------
# Field and column shapes (002, "La ficha": number, text, longtext, boolean, enum, dice)

FieldValue = str | int | float | bool


class _NumberShape(RulesetModel):
    type: Literal["number"]
    min: Number
    max: Number
    default: Number | None = None
    integer: bool = True

    @model_validator(mode="after")
    def _in_range(self) -> _NumberShape:
        if self.min > self.max:
            raise PydanticCustomError("number_range", "a number needs min ≤ max")
        if self.default is not None:
            if not self.min <= self.default <= self.max:
                raise PydanticCustomError("number_default", "default must lie within min..max")
            if self.integer and self.default != int(self.default):
                raise PydanticCustomError("number_default", "an integer's default must be whole")
        return self

    def holds(self, value: FieldValue) -> str | None:
        """Why `value` can never be this number's value (a short phrase), or None when it can."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "not a number"
        if not self.min <= value <= self.max:
            return f"outside {self.min}..{self.max}"
        if self.integer and value != int(value):
            return "not a whole number"
        return None


class _TextShape(RulesetModel):
    type: Literal["text"]
    max_length: Annotated[int, Field(ge=1, le=500)] = Field(default=500, alias="maxLength")
    default: Annotated[str, StringConstraints(max_length=500)] | None = None
    suggestions: Annotated[list[PromptSafe80], Field(max_length=40)] | None = None
    pick: RulesetValueRef | None = None

    @model_validator(mode="after")
    def _default_fits(self) -> _TextShape:
        if self.default is not None and len(self.default) > self.max_length:
            raise PydanticCustomError("text_default", "default is longer than maxLength")
        return self

    def holds(self, value: FieldValue) -> str | None:
        """Why `value` can never be this text's value, or None when it can."""
        if not isinstance(value, str):
            return "not text"
        if len(value) > self.max_length:
            return f"longer than maxLength {self.max_length}"
        return None


class _LongTextShape(RulesetModel):
    type: Literal["longtext"]
    max_length: Annotated[int, Field(ge=1, le=4000)] = Field(default=4000, alias="maxLength")
    default: Annotated[str, StringConstraints(max_length=4000)] | None = None

    @model_validator(mode="after")
    def _default_fits(self) -> _LongTextShape:
        if self.default is not None and len(self.default) > self.max_length:
            raise PydanticCustomError("text_default", "default is longer than maxLength")
        return self

    def holds(self, value: FieldValue) -> str | None:
        """Why `value` can never be this text's value, or None when it can."""
        if not isinstance(value, str):
            return "not text"
        if len(value) > self.max_length:
            return f"longer than maxLength {self.max_length}"
        return None


class _BooleanShape(RulesetModel):
    type: Literal["boolean"]
    default: bool | None = None

    def holds(self, value: FieldValue) -> str | None:
        """Why `value` can never be this boolean's value, or None when it can."""
        return None if isinstance(value, bool) else "not true or false"


class _EnumShape(RulesetModel):
    type: Literal["enum"]
    values: Annotated[list[EnumValue], Field(min_length=1, max_length=40), AfterValidator(_unique)]
    value_labels: dict[str, PromptSafe80] | None = Field(default=None, alias="valueLabels")
    default: str | None = None

    @model_validator(mode="after")
    def _known_values(self) -> _EnumShape:
        unknown = [key for key in self.value_labels or {} if key not in self.values]
        if unknown:
            raise PydanticCustomError(
                "enum_labels",
                "valueLabels names values the enum lacks: {names}",
                {"names": ", ".join(unknown)},
            )
        if self.default is not None and self.default not in self.values:
            raise PydanticCustomError("enum_default", "default must be one of the values")
        return self

    def holds(self, value: FieldValue) -> str | None:
        """Why `value` can never be this enum's value, or None when it can."""
        if not isinstance(value, str) or value not in self.values:
            return "not one of its values"
        return None


class _DiceShape(RulesetModel):
    type: Literal["dice"]
    default: Dice40 | None = None
    example: Dice40 | None = None

    def holds(self, value: FieldValue) -> str | None:
        """Why `value` can never be this dice text, or None when it can."""
        if not isinstance(value, str):
            return "not text"
        if len(value) > 40:
            return "longer than 40 characters"
        return None


class NumberField(_NumberShape, _Placed):
    """A number field: `min`, `max` (required, finite), `default`, `integer` (default true)."""


class TextField(_TextShape, _Placed):
    """A one-line text field; `suggestions` (002, 1.796) and `pick` (1.797) help the editor."""


class LongTextField(_LongTextShape, _Placed):
    """A multi-line text field of at most 4,000 characters."""


class BooleanField(_BooleanShape, _Placed):
    """An on/off field."""


class EnumField(_EnumShape, _Placed):
    """A fixed set of 1–40 distinct values, chosen when the character is made."""


class DiceField(_DiceShape, _Placed):
    """Dice written as text (`1d8`)."""


SheetField = Annotated[
    NumberField | TextField | LongTextField | BooleanField | EnumField | DiceField,
    tagged(
        "type",
        {
            "number": NumberField,
            "text": TextField,
            "longtext": LongTextField,
            "boolean": BooleanField,
            "enum": EnumField,
            "dice": DiceField,
        },
    ),
]
"""A field of `sheet.fields` (or `party.fields`), tagged by `type`."""


class _Cell(_Entry):
    required: bool = False


class RollColumn(RulesetModel):
    """`{column}`: the sides a roll reads from another column of the same row."""

    column: SheetId


def _roll_sides(value: Any, _handler: ValidatorFunctionWrapHandler) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        if not 2 <= value <= 1000:
            raise PydanticCustomError("roll_sides", "sides must be from 2 to 1000")
        return value
    if isinstance(value, dict):
        if set(value) == {"column"}:
            return RollColumn.model_validate(value)
        return RulesetValueRef.model_validate(value)
    raise PydanticCustomError("roll_sides", "sides is a number, {column} or a value reference")


class ColumnRoll(RulesetModel):
    """002, "La ficha": a number column the editor can fill with a roll (1.85).

    `sides` is a number, another column of the row (`{ "column": "die" }`: a
    number column or an enum whose values read as dice) or a sheet value.
    """

    count: Annotated[int, Field(ge=1, le=100)]
    sides: Annotated[int | RollColumn | RulesetValueRef, WrapValidator(_roll_sides)]


class NumberColumn(_NumberShape, _Cell):
    """A number column; `sum` (004, 1.210) makes it a read-only sum of up to six others."""

    sum: Annotated[list[SheetId], Field(min_length=1, max_length=6)] | None = None
    roll: ColumnRoll | None = None

    @model_validator(mode="after")
    def _sum_or_roll(self) -> NumberColumn:
        if self.sum is not None and self.roll is not None:
            raise PydanticCustomError("computed_roll", "a computed column (sum) is never rolled")
        return self


class TextColumn(_TextShape, _Cell):
    """A text column."""


class LongTextColumn(_LongTextShape, _Cell):
    """A long text column."""


class BooleanColumn(_BooleanShape, _Cell):
    """A boolean column."""


class EnumColumn(_EnumShape, _Cell):
    """An enum column."""


class DiceColumn(_DiceShape, _Cell):
    """A dice column."""


Column = Annotated[
    NumberColumn | TextColumn | LongTextColumn | BooleanColumn | EnumColumn | DiceColumn,
    tagged(
        "type",
        {
            "number": NumberColumn,
            "text": TextColumn,
            "longtext": LongTextColumn,
            "boolean": BooleanColumn,
            "enum": EnumColumn,
            "dice": DiceColumn,
        },
    ),
]
"""A list column: the field shapes without section or hideWhen, plus `required`."""

FieldLike = (
    NumberField
    | TextField
    | LongTextField
    | BooleanField
    | EnumField
    | DiceField
    | NumberColumn
    | TextColumn
    | LongTextColumn
    | BooleanColumn
    | EnumColumn
    | DiceColumn
)

# ---------------------------------------------------------------------------
# Derived values (002, "La ficha" and "Números que lo siguen.")


class _Derived(_Placed):
    def refs(self) -> list[tuple[str, RulesetValueRef]]:
        """Every value reference this value reads, each with its JSON path below the value."""
        return []


class _OfMany(_Derived):
    of: list[RulesetValueRef]

    def refs(self) -> list[tuple[str, RulesetValueRef]]:
        """Every value reference this value reads, each with its JSON path below the value."""
        return [(f"of.{index}", ref) for index, ref in enumerate(self.of)]


class SumDerived(_OfMany):
    """`sum`: 1–12 references added up."""

    op: Literal["sum"]
    of: Annotated[list[RulesetValueRef], Field(min_length=1, max_length=12)]


class MinDerived(_OfMany):
    """`min`: the least of 2–12 references."""

    op: Literal["min"]
    of: Annotated[list[RulesetValueRef], Field(min_length=2, max_length=12)]


class MaxDerived(_OfMany):
    """`max`: the greatest of 2–12 references."""

    op: Literal["max"]
    of: Annotated[list[RulesetValueRef], Field(min_length=2, max_length=12)]


class MultiplyDerived(_OfMany):
    """`multiply` (002, 1.82): two to six references multiplied together (SPEC §9: `of`)."""

    op: Literal["multiply"]
    of: Annotated[list[RulesetValueRef], Field(min_length=2, max_length=6)]


class ScaleDerived(_Derived):
    """`scale`: one reference times a fixed number, rounded (default down)."""

    op: Literal["scale"]
    of: RulesetValueRef
    multiplier: Number
    round: Rounding = "down"

    def refs(self) -> list[tuple[str, RulesetValueRef]]:
        """Every value reference this value reads, each with its JSON path below the value."""
        return [("of", self.of)]


class StepTableDerived(_Derived):
    """`stepTable`: look a reference up in thresholds (a level giving a proficiency bonus)."""

    op: Literal["stepTable"]
    from_: RulesetValueRef = Field(alias="from")
    table: StepTable

    def refs(self) -> list[tuple[str, RulesetValueRef]]:
        """Every value reference this value reads, each with its JSON path below the value."""
        return [("from", self.from_)]


class EnumTableFrom(RulesetModel):
    """002, "Números que lo siguen.": exactly one of `field` (an enum field) or `liveState`.

    The key is `liveState`, not `state`, so that a live read is visible as one:
    nothing worked out before play may read a table keyed on a live state.
    """

    field: SheetId | None = None
    live_state: SheetId | None = Field(default=None, alias="liveState")

    @model_validator(mode="after")
    def _one_source(self) -> EnumTableFrom:
        if (self.field is None) == (self.live_state is None):
            raise PydanticCustomError(
                "enum_table_from", "from names exactly one of field or liveState"
            )
        return self


class EnumTableDerived(_Derived):
    """`enumTable`: a number for each value of an enum field or live state (002).

    A value the table omits, and a state the sheet hides, read `default` (0).
    """

    op: Literal["enumTable"]
    from_: EnumTableFrom = Field(alias="from")
    table: Annotated[dict[str, Number], Field(min_length=1, max_length=40)]
    default: Number = 0


Derived = Annotated[
    SumDerived
    | MinDerived
    | MaxDerived
    | MultiplyDerived
    | ScaleDerived
    | StepTableDerived
    | EnumTableDerived,
    tagged(
        "op",
        {
            "sum": SumDerived,
            "min": MinDerived,
            "max": MaxDerived,
            "multiply": MultiplyDerived,
            "scale": ScaleDerived,
            "stepTable": StepTableDerived,
            "enumTable": EnumTableDerived,
        },
    ),
]
"""A derived value, tagged by `op`; it is worked out from others and never typed in."""

DerivedValue = (
    SumDerived
    | MinDerived
    | MaxDerived
    | MultiplyDerived
    | ScaleDerived
    | StepTableDerived
    | EnumTableDerived
)

# ---------------------------------------------------------------------------
# Lists


class ListPools(RulesetModel):
    """A list whose rows are live pools, keyed `<listId>:<lowercased trimmed name>`."""

    name_column: SheetId = Field(alias="nameColumn")
    max_column: SheetId = Field(alias="maxColumn")
    recharge_column: SheetId | None = Field(default=None, alias="rechargeColumn")


class ContextualCheck(RulesetModel):
    """004, "Una lista puede declarar contextual": the pool effect each applied row gives.

    `cancel: false` (1.214) stops low faces cancelling; `best: true` (1.217)
    rolls the character's best skill rating. Every effect but `best` needs a
    dice pool.
    """

    dice: Annotated[int, Field(ge=1, le=10)] | None = None
    successes: Annotated[int, Field(ge=1, le=10)] | None = None
    double: Annotated[int, Field(ge=2, le=1000)] | None = None
    explode: Annotated[int, Field(ge=2, le=1000)] | None = None
    cancel: Literal[False] | None = None
    best: Literal[True] | None = None

    @model_validator(mode="after")
    def _does_something(self) -> ContextualCheck:
        if all(getattr(self, key) is None for key in type(self).model_fields):
            raise PydanticCustomError("contextual_check", "a contextual check must do something")
        return self

    @property
    def pool_effects(self) -> list[str]:
        """The keys given that change a dice pool (all but `best`)."""
        return [
            key
            for key in ("dice", "successes", "double", "explode", "cancel")
            if getattr(self, key) is not None
        ]


class ContextualCost(RulesetModel):
    """What applying a row costs: `{pool, amount}` or (004, 1.218) `{track, by}`."""

    pool: SheetId | None = None
    amount: Annotated[int, Field(ge=1, le=100)] | None = None
    track: SheetId | None = None
    by: Annotated[int, Field(ge=1, le=100)] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> ContextualCost:
        pool = self.pool is not None and self.amount is not None
        track = self.track is not None and self.by is not None
        given = sum(value is not None for value in (self.pool, self.amount, self.track, self.by))
        if given != 2 or pool == track:
            raise PydanticCustomError("contextual_cost", "a cost is {pool, amount} or {track, by}")
        return self


class ListContextual(RulesetModel):
    """004: rows the Game Master names (`apply=`) add a bonus, dice or a pool effect.

    `name` is the column a row is named by; `skill` the column naming the skill
    it applies to (or, with `abilities: true`, an ability); `bonus` a number
    column; `dice` a dice column; `to: "saves"` applies rows to saves instead.
    """

    name: SheetId
    skill: SheetId | None = None
    bonus: SheetId | None = None
    dice: SheetId | None = None
    to: Literal["checks", "saves"] | None = None
    check: ContextualCheck | None = None
    abilities: bool | None = None
    cost: Annotated[list[ContextualCost], Field(min_length=1, max_length=4)] | None = None


class ContextualModifiers(RulesetModel):
    """004, "mechanics.contextual": the signed modifier an applied entry adds to checks or saves."""

    checks: Annotated[int, Field(ge=-20, le=20)] | None = None
    saves: Annotated[int, Field(ge=-20, le=20)] | None = None


class EntryContextual(RulesetModel):
    """004, "Una entrada de catálogo puede llevar mechanics.contextual": a picked entry on a check.

    `modifiers` adds to checks or saves; `skills` and `saves` (ids) restrict
    the entry to those checks (with neither it applies to any check or save);
    `check` is a pool effect as on a list; `cost` is paid once on the check it
    applies to. `effects` (own-checks-advantage and the other named check and
    save effects) is kept as written and not executed: the seeds do not list
    the names it takes.
    """

    effects: Annotated[list[PromptSafe80], Field(max_length=8)] | None = None
    modifiers: ContextualModifiers | None = None
    skills: Annotated[list[SheetId], Field(min_length=1, max_length=24)] | None = None
    saves: Annotated[list[SheetId], Field(min_length=1, max_length=24)] | None = None
    check: ContextualCheck | None = None
    cost: Annotated[list[ContextualCost], Field(min_length=1, max_length=4)] | None = None


class ListCheck(RulesetModel):
    """004, "Filas que son pruebas por sí mismas": each row is a check called by name.

    `name` is the text column naming the row and `rating` the number column
    that is its value; `ability` adds like a skill's ability; `label` tells two
    checks of one list apart; `stance` (1.212) names a resolution stance.
    """

    id: SheetId
    name: SheetId
    rating: SheetId
    ability: SheetId | None = None
    label: PromptSafe80 | None = None
    stance: SheetId | None = None


class SheetList(_Placed):
    """002, "La ficha": a table with its own columns (up to 24), such as gear or spells.

    `maxItems` defaults to 500, the most rows a stored sheet keeps (the seed's
    party list omits it). `pools` turns each row into a live pool.
    """

    max_items: Annotated[int, Field(ge=1, le=500)] = Field(default=500, alias="maxItems")
    columns: Annotated[list[Column], Field(min_length=1, max_length=24)]
    pools: ListPools | None = None
    contextual: ListContextual | None = None
    checks: Annotated[list[ListCheck], Field(min_length=1, max_length=4)] | None = None

    def column(self, column_id: str) -> FieldLike | None:
        """The column with this id, or None."""
        return next((c for c in self.columns if c.id == column_id), None)


# ---------------------------------------------------------------------------
# Live state


class LivePool(_Entry):
    """002 `live.pools`: a current value out of a maximum (hit points, slots, Grit).

    `max` may not read live state. `start` is full (default) or empty;
    `startFrom` (004, 1.158) starts it at a sheet value instead, clamped to
    0..max, so it is given instead of `start`, never beside it.
    """

    max: RulesetValueRef
    allow_temp: bool = Field(default=False, alias="allowTemp")
    group: SheetId | None = None
    start: Literal["full", "empty"] | None = None
    start_from: RulesetValueRef | None = Field(default=None, alias="startFrom")
    hide_when: HideWhen | None = Field(default=None, alias="hideWhen")

    @model_validator(mode="after")
    def _one_start(self) -> LivePool:
        if self.start is not None and self.start_from is not None:
            raise PydanticCustomError("pool_start", "a pool takes start or startFrom, not both")
        return self

    @property
    def starts_empty(self) -> bool:
        """True when the pool starts empty (`start: "empty"`)."""
        return self.start == "empty"


class WoundLevel(RulesetModel):
    """A named rung of a wound track, best first; `-99` is a fine "out of the fight"."""

    label: PromptSafe80
    penalty: Annotated[int, Field(ge=-1000, le=0)]


class WoundKind(RulesetModel):
    """A kind a mark can be: an id, a short label for the box and a severity."""

    id: SheetId
    label: KindLabel
    severity: Annotated[int, Field(ge=-100, le=100)]


BoxTable = Annotated[
    list[StepRow], Field(min_length=1, max_length=40), AfterValidator(ascending_steps)
]


class BoxPenalty(RulesetModel):
    """002, "Casillas numeradas…": the penalty read from boxes filled or remaining."""

    by: Literal["filled", "remaining"]
    table: BoxTable


class Boxes(RulesetModel):
    """Numbered boxes instead of named levels; as many as the track's own `max` (≤ 64)."""

    penalty: BoxPenalty


class TrackExtra(RulesetModel):
    """002, "Niveles que añade una lista": each row of `list` adds levels to the track."""

    list: SheetId
    count_column: SheetId = Field(alias="countColumn")
    penalty_column: SheetId = Field(alias="penaltyColumn")


class LiveTrack(_Entry):
    """002 `live.tracks`: a plain bounded number, or a wound track of typed marks.

    A track with `levels`, `boxes` or `kinds` is a wound track; the rules tying
    those keys together (both kinds and levels or boxes, never both, max equal
    to the levels, no hideWhen, …) are checked by `validate` with their paths.
    """

    min: int
    max: IntOrRef
    default: int | None = None
    start_from: RulesetValueRef | None = Field(default=None, alias="startFrom")
    levels: Annotated[list[WoundLevel], Field(min_length=1, max_length=16)] | None = None
    kinds: Annotated[list[WoundKind], Field(min_length=1, max_length=6)] | None = None
    boxes: Boxes | None = None
    fill: Literal["sequential", "indexed"] | None = None
    on_full: Literal["upgrade", "refuse"] | None = Field(default=None, alias="onFull")
    extra: TrackExtra | None = None
    always_show: bool = Field(default=False, alias="alwaysShow")
    hide_when: HideWhen | None = Field(default=None, alias="hideWhen")

    @property
    def is_wound(self) -> bool:
        """True for a wound track: one with levels, boxes or kinds."""
        return self.levels is not None or self.boxes is not None or self.kinds is not None

    @property
    def fill_mode(self) -> Literal["sequential", "indexed"]:
        """Where a new mark lands (default sequential)."""
        return self.fill or "sequential"

    @property
    def when_full(self) -> Literal["upgrade", "refuse"]:
        """What a mark with no room does (default upgrade)."""
        return self.on_full or "upgrade"


class LiveText(_Entry):
    """A short live note (what a character concentrates on)."""

    max_length: Annotated[int, Field(ge=1, le=500)] = Field(alias="maxLength")


class Condition(_Entry):
    """A condition: on or off."""


class LiveState(_Entry):
    """002, "Estados vivos": one value of a closed set at a time, changed in play.

    2–40 values, prompt-safe and without double quotes (the command quotes
    them); `default` is the first value when omitted.
    """

    values: Annotated[list[StateValue], Field(min_length=2, max_length=40), AfterValidator(_unique)]
    value_labels: dict[str, PromptSafe80] | None = Field(default=None, alias="valueLabels")
    default: str | None = None
    hide_when: HideWhen | None = Field(default=None, alias="hideWhen")

    @model_validator(mode="after")
    def _known_values(self) -> LiveState:
        unknown = [key for key in self.value_labels or {} if key not in self.values]
        if unknown:
            raise PydanticCustomError(
                "state_labels",
                "valueLabels names values the state lacks: {names}",
                {"names": ", ".join(unknown)},
            )
        if self.default is not None and self.default not in self.values:
            raise PydanticCustomError("state_default", "default must be one of the values")
        return self

    @property
    def start(self) -> str:
        """The value every sheet starts with."""
        return self.default if self.default is not None else self.values[0]


class Live(RulesetModel):
    """002 `live`: what changes in play."""

    pools: Annotated[list[LivePool], Field(max_length=60)] = []
    tracks: Annotated[list[LiveTrack], Field(max_length=30)] = []
    text: Annotated[list[LiveText], Field(max_length=12)] = []
    conditions: Annotated[list[Condition], Field(max_length=80)] = []
    states: Annotated[list[LiveState], Field(max_length=12)] = []


# ---------------------------------------------------------------------------
# Advancement and the sheet


class Advancement(RulesetModel):
    """The fields the GM may change for good with `op="advance"`.

    002, "Ficha de grupo…": number, text or longtext fields; `text` is one
    prompt-safe line of at most 400. 004, "Listas de avance más largas": up to 64.
    """

    fields: Annotated[list[SheetId], Field(max_length=64)]
    text: PromptSafe400 | None = None


class Sheet(RulesetModel):
    """The `sheet` section (strict; limits as the seeds raise them)."""

    version: Annotated[int, Field(ge=1)]
    sections: Annotated[list[Section], Field(max_length=20)] = []
    abilities: Annotated[list[Ability], Field(max_length=20)] = []
    skills: Annotated[list[Skill], Field(max_length=120)] = []
    saves: Annotated[list[Save], Field(max_length=40)] = []
    skill_tiers: Annotated[list[SheetId], Field(min_length=1, max_length=12)] | None = Field(
        default=None, alias="skillTiers"
    )
    save_tiers: Annotated[list[SheetId], Field(min_length=1, max_length=12)] | None = Field(
        default=None, alias="saveTiers"
    )
    bonus_range: BonusRange = Field(default=BonusRange(), alias="bonusRange")
    fields: Annotated[list[SheetField], Field(max_length=240)] = []
    derived: Annotated[list[Derived], Field(max_length=800)] = []
    lists: Annotated[list[SheetList], Field(max_length=20)] = []
    live: Live = Live()
    advancement: Advancement | None = None
    builder: JsonObject | None = None
