"""`rests`: named rests, each a list of restore steps and things to clear.

002, "Descansos": each step names one target (`pool`, `poolGroup`,
`listPools`, `track` or `state`) and sets it (`to`: "max", "min" or a number)
or shifts it (`by`: `{const}` or `{fractionOfMax}`). A step naming a wound
track only heals it ("Un descanso puede curar heridas."); one naming a live
state only sets it, to "default" or one of its values. SPEC §9: `to: "min"`
on a pool means 0. Whether a target exists is checked by
`gmtags.ruleset.validate`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, ValidatorFunctionWrapHandler, WrapValidator, model_validator
from pydantic_core import PydanticCustomError

from gmtags.ruleset.base import PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.refs import Number, Rounding, number_between

RestTarget = Literal["pool", "poolGroup", "listPools", "track", "state"]

_TARGETS: dict[str, RestTarget] = {
    "pool": "pool",
    "pool_group": "poolGroup",
    "list_pools": "listPools",
    "track": "track",
    "state": "state",
}


class RestBy(RulesetModel):
    """A shift: `{const: n}` or `{fractionOfMax: (0, 1], round, min}`.

    002: the 5e long rest's hit dice are `{"fractionOfMax": 0.5, "round":
    "down", "min": 1}`; `round` and `min` only go with `fractionOfMax`.
    """

    const: int | None = None
    fraction_of_max: Annotated[Number, number_between(0, 1)] | None = Field(
        default=None, alias="fractionOfMax"
    )
    round: Rounding | None = None
    min: Annotated[int, Field(ge=0)] | None = None

    @model_validator(mode="after")
    def _one_shift(self) -> RestBy:
        if (self.const is None) == (self.fraction_of_max is None):
            raise PydanticCustomError("rest_by", "by takes exactly one of const or fractionOfMax")
        if self.fraction_of_max is not None and self.fraction_of_max <= 0:
            raise PydanticCustomError("rest_by", "fractionOfMax must be above 0")
        if self.const is not None and (self.round is not None or self.min is not None):
            raise PydanticCustomError("rest_by", "round and min only go with fractionOfMax")
        return self

    @property
    def rounding(self) -> Rounding:
        """How a fraction is rounded (default down)."""
        return self.round or "down"


def _rest_to(value: Any, _handler: ValidatorFunctionWrapHandler) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and 0 < len(value) <= 80:
        return value
    raise PydanticCustomError(
        "rest_to", 'to is "max", "min", a whole number, or for a state "default" or a value'
    )


RestTo = Annotated[int | str, WrapValidator(_rest_to)]


class RestoreStep(RulesetModel):
    """One restore step: exactly one target and exactly one of `to` or `by`.

    `recharge` (1–12 values of the list's rechargeColumn) only goes with
    `listPools`; `kind` (narrowing a wound track's heal) only with `track`;
    `shared` (002, 1.77: one fraction of the whole group's maximum) only with
    `poolGroup` and `fractionOfMax`. A state step only sets (`to`).
    """

    pool: SheetId | None = None
    pool_group: SheetId | None = Field(default=None, alias="poolGroup")
    list_pools: SheetId | None = Field(default=None, alias="listPools")
    track: SheetId | None = None
    state: SheetId | None = None
    recharge: (
        Annotated[
            list[Annotated[str, Field(min_length=1, max_length=80)]],
            Field(min_length=1, max_length=12),
        ]
        | None
    ) = None
    kind: SheetId | None = None
    shared: bool | None = None
    to: RestTo | None = None
    by: RestBy | None = None

    @model_validator(mode="after")
    def _shape(self) -> RestoreStep:
        targets = [name for name in _TARGETS if getattr(self, name) is not None]
        if len(targets) != 1:
            raise PydanticCustomError(
                "rest_target",
                "a restore step names exactly one of pool, poolGroup, listPools, track or state",
            )
        if (self.to is None) == (self.by is None):
            raise PydanticCustomError("rest_to_by", "a restore step takes exactly one of to or by")
        target = _TARGETS[targets[0]]
        if self.recharge is not None and target != "listPools":
            raise PydanticCustomError("rest_recharge", "recharge only goes with listPools")
        if self.kind is not None and target != "track":
            raise PydanticCustomError("rest_kind", "kind only goes with track")
        if self.shared is not None and (
            target != "poolGroup" or self.by is None or self.by.fraction_of_max is None
        ):
            raise PydanticCustomError(
                "rest_shared", "shared only goes with poolGroup and by.fractionOfMax"
            )
        if target == "state":
            if self.by is not None:
                raise PydanticCustomError("rest_state", 'a state step only sets: use "to"')
            if not isinstance(self.to, str):
                raise PydanticCustomError(
                    "rest_state", 'a state step sets "default" or one of the state\'s values'
                )
        elif isinstance(self.to, str) and self.to not in ("max", "min"):
            raise PydanticCustomError("rest_to", 'to is "max", "min" or a whole number')
        return self

    @property
    def target(self) -> tuple[RestTarget, str]:
        """The step's target: its key as the file spells it, and the id it names."""
        for name, key in _TARGETS.items():
            value = getattr(self, name)
            if value is not None:
                return key, value
        raise AssertionError("a validated step always has one target")


ConditionIds = Annotated[list[SheetId], Field(max_length=80)]


class RestClear(RulesetModel):
    """What a rest clears: live text ids, and conditions (`"all"` or a list of ids)."""

    text: Annotated[list[SheetId], Field(max_length=12)] = []
    conditions: Literal["all"] | ConditionIds = []


class Rest(RulesetModel):
    """A named rest (SCHEMA-NOTES §7, 002 "Descansos"); run by `op="rest"` (SPEC §9)."""

    id: SheetId
    label: PromptSafe80
    restore: Annotated[list[RestoreStep], Field(max_length=40)] = []
    clear: RestClear = RestClear()
