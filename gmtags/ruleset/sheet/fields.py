"""002, "La ficha": field and list-column shapes (number, text, longtext, boolean, enum, dice)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    Field,
    StringConstraints,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gmtags.ruleset.base import PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.refs import (
    Number,
    RulesetValueRef,
)
from gmtags.ruleset.sheet.common import Dice40, EnumValue, tagged, unique
from gmtags.ruleset.sheet.entries import Entry, Placed

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
    values: Annotated[list[EnumValue], Field(min_length=1, max_length=40), AfterValidator(unique)]
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


class NumberField(_NumberShape, Placed):
    """A number field: `min`, `max` (required, finite), `default`, `integer` (default true)."""


class TextField(_TextShape, Placed):
    """A one-line text field; `suggestions` (002, 1.796) and `pick` (1.797) help the editor."""


class LongTextField(_LongTextShape, Placed):
    """A multi-line text field of at most 4,000 characters."""


class BooleanField(_BooleanShape, Placed):
    """An on/off field."""


class EnumField(_EnumShape, Placed):
    """A fixed set of 1–40 distinct values, chosen when the character is made."""


class DiceField(_DiceShape, Placed):
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


class _Cell(Entry):
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
