"""What the sheet models share: tagged shapes with clean JSON paths, prompt-safe text,
`hideWhen` and the untrained rules (002, "La ficha")."""

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

from gmtags.ruleset.base import RulesetModel, SheetId, check_prompt_safe
from gmtags.ruleset.refs import (
    RulesetValueRef,
    Scalar,
)

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

    def validate(value: Any, _handler: ValidatorFunctionWrapHandler) -> Any:
        if not isinstance(value, dict):
            raise PydanticCustomError("object_type", "must be an object")
        name = value.get(tag)
        model = models.get(name) if isinstance(name, str) else None
        if model is None:  # the names as they are now: `models` may be added to
            names = ", ".join(models)
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


def unique(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise PydanticCustomError("unique_values", "values must not repeat")
    return values


def _state_value(value: str) -> str:
    check_prompt_safe(value)
    if '"' in value:
        raise PydanticCustomError(
            "state_quote", "a state value never contains a double quote (the command quotes it)"
        )
    return value


EnumValue = Annotated[str, StringConstraints(min_length=1, max_length=80)]
StateValue = Annotated[str, StringConstraints(max_length=80), AfterValidator(_state_value)]
Short = Annotated[str, StringConstraints(max_length=8), AfterValidator(check_prompt_safe)]
KindLabel = Annotated[str, StringConstraints(max_length=16), AfterValidator(check_prompt_safe)]
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
