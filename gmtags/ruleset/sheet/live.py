"""002, "Estado vivo": pools, tracks (wound tracks too), live text, conditions and states."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    Field,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gmtags.ruleset.base import PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.refs import (
    RulesetValueRef,
    StepRow,
    ascending_steps,
)
from gmtags.ruleset.sheet.common import HideWhen, IntOrRef, KindLabel, StateValue, unique
from gmtags.ruleset.sheet.entries import Entry

# ---------------------------------------------------------------------------
# Live state


class LivePool(Entry):
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


class LiveTrack(Entry):
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


class LiveText(Entry):
    """A short live note (what a character concentrates on)."""

    max_length: Annotated[int, Field(ge=1, le=500)] = Field(alias="maxLength")


class Condition(Entry):
    """A condition: on or off."""


class LiveState(Entry):
    """002, "Estados vivos": one value of a closed set at a time, changed in play.

    2–40 values, prompt-safe and without double quotes (the command quotes
    them); `default` is the first value when omitted.
    """

    values: Annotated[list[StateValue], Field(min_length=2, max_length=40), AfterValidator(unique)]
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
