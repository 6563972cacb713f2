"""The snapshot (game state) model with the storage names of SPEC §4.

Snapshots are immutable values: every transition builds a new one through
`model_validate`, so a new snapshot is checked exactly like one read from a
file. Keys gmtags does not own are kept (extra="allow") so nothing a front end
stored is lost on a round trip.
"""

from __future__ import annotations

import math
import os
from typing import Annotated, Any, Self

from pydantic import (
    AfterValidator,
    AllowInfNan,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    model_serializer,
    model_validator,
)

from gmtags.errors import Problem, SnapshotError, json_path
from gmtags.jsonfile import JsonTextError, data_problem, dumps, loads
from gmtags.state.names import PARTY_KEY, normalize_name
from gmtags.text import has_control

FiniteFloat = Annotated[StrictFloat, AllowInfNan(False)]
"""Issue 11: a snapshot is written as strict JSON, so it never holds NaN or an infinity."""
Number = StrictInt | FiniteFloat
Scalar = StrictInt | FiniteFloat | bool | str | None
LayerId = Annotated[StrictStr, Field(min_length=1, max_length=40)]
"""A layer id (SCHEMA-NOTES §12: a sheet id, at most 40 characters)."""


class StateModel(BaseModel):
    """A frozen part of the snapshot that keeps keys it does not know."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)


class SkillEntry(StateModel):
    """A trained skill or save: its tier id and its free bonus."""

    tier: str
    bonus: Number = 0


ItemRef = Annotated[
    StrictStr, Field(max_length=81, pattern=r"^[a-z][a-z0-9_]*/[a-z0-9]+(?:-[a-z0-9]+)*$")
]
"""SPEC §4, an item's `ref`: `<item catalog id>/<entry id>` (SCHEMA-NOTES §1, at most 81)."""


def _stat_value(value: Any) -> Any:
    """A free-form item's stat value: a finite number, text, a boolean or null, refused once
    at its own path (a union would report one problem per branch)."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
        return value
    raise ValueError("a stat holds a finite number, text, a boolean or null")


StatValue = Annotated[Any, AfterValidator(_stat_value)]

MAX_ITEM_COUNT = 1_000_000
"""The most copies one line of `items` holds: past any stack a game keeps, and low enough that
a sum of copies stays an exact number."""


class CardItem(StateModel):
    """One line of a card's `items` (SPEC §4): a catalog item or a free-form one.

    `{"ref": "<item catalog id>/<entry id>", "count": 1, "worn": false, "slot": "<slot id>"}`,
    or `{"name": "…", "stats": {…}}` instead of `ref` for a free-form item. Exactly one of
    `ref` and `name`; `stats` only beside `name` (a catalog item's stats are its entry's).

    Decisions where SPEC is silent:
    - `count` is a whole number from 0 to `MAX_ITEM_COUNT`. 0 is a line kept with no copy
      left (the last arrow loosed): it stays on the card and reads as nothing. A negative
      count, a fraction or a boolean is no inventory, and the snapshot is refused there.
    - A `ref` naming no entry of the ruleset is kept as written and contributes nothing
      (`gmtags.sheet.items`): a ruleset may drop an entry, and the player keeps the line.
    - The line is written back as it was read: a `count` or `worn` written at its default
      stays written, so a round trip is byte-stable.
    """

    ref: ItemRef | None = None
    name: Annotated[StrictStr, Field(min_length=1, max_length=120)] | None = None
    stats: dict[StrictStr, StatValue] | None = None
    count: Annotated[StrictInt, Field(ge=0, le=MAX_ITEM_COUNT)] = 1
    worn: StrictBool = False
    slot: Annotated[StrictStr, Field(min_length=1, max_length=40)] | None = None

    @model_validator(mode="after")
    def _ref_or_name(self) -> Self:
        if (self.ref is None) == (self.name is None):
            raise ValueError("an item has a ref (a catalog item) or a name (a free-form one)")
        if self.ref is not None and self.stats is not None:
            raise ValueError("stats belong to a free-form item; a catalog item reads its entry's")
        return self

    @model_serializer(mode="plain")
    def _as_written(self) -> dict[str, Any]:
        """The keys that were written (defaults included) in model order, then the rest."""
        written = self.model_fields_set
        data: dict[str, Any] = {
            name: getattr(self, name) for name in type(self).model_fields if name in written
        }
        return {**data, **(self.__pydantic_extra__ or {})}


class CharacterCard(StateModel):
    """One character's permanent sheet (`gameCharacterCards.<name>`)."""

    abilities: dict[str, Number] = {}
    skills: dict[str, SkillEntry | str] = {}
    saves: dict[str, SkillEntry | str] = {}
    bonuses: dict[str, Number] = {}
    fields: dict[str, Scalar] = {}
    lists: dict[str, list[dict[str, Any]]] = {}
    picks: list[str] = []
    items: list[CardItem] = []
    """SPEC §4: the character's inventory, read by `itemStat` (`gmtags.sheet.items`)."""


class PartySheet(StateModel):
    """The shared party sheet's permanent values (`gamePartySheet`)."""

    fields: dict[str, Scalar] = {}
    lists: dict[str, list[dict[str, Any]]] = {}


class LiveEntry(StateModel):
    """Live values of one character, or of the party (`rulesetLive.<name>`).

    Sparse: a value at its starting value need not be stored (SPEC §4).
    """

    pools: dict[str, StrictInt] = {}
    temp: dict[str, StrictInt] = {}
    tracks: dict[str, StrictInt] = {}
    marks: dict[str, list[str]] = {}
    overflow: dict[str, StrictInt] = {}
    states: dict[str, str] = {}
    conditions: list[str] = []
    text: dict[str, str] = {}


EMPTY_LIVE = LiveEntry()
"""A live entry storing nothing, the live state play starts from: frozen, so one is shared
(issue 16: a new `LiveEntry()` copies every default and costs a quarter of a sheet command)."""


class Clock(StateModel):
    """One progress clock (002, clocks): `filled` of `size` segments."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, Field(min_length=1, max_length=100)]
    size: Annotated[StrictInt, Field(ge=2, le=12)]
    filled: Annotated[StrictInt, Field(ge=0)]

    @model_validator(mode="after")
    def _within_size(self) -> Self:
        if self.filled > self.size:
            raise ValueError(f"clock {self.name!r} is filled past its size")
        if not clock_name_ok(self.name):
            raise ValueError(f"clock name {self.name!r} is not a valid clock name")
        return self


def clock_name_ok(name: str) -> bool:
    """002: 1–100 characters, one line, no double quotes, brackets, control chars or `{{ }}`."""
    return (
        0 < len(name) <= 100
        and not has_control(name)
        and not any(ch in name for ch in '"\u201c\u201d[]')
        and "{{" not in name
        and "}}" not in name
    )


def clock_key(name: str) -> str:
    """Clock names compare without regard to case (002)."""
    return name.strip().casefold()


class Snapshot(StateModel):
    """The whole game state a response is applied to (SPEC §4). `Snapshot()` is empty."""

    game_character_cards: dict[str, CharacterCard] = Field(default={}, alias="gameCharacterCards")
    game_party_sheet: PartySheet | None = Field(default=None, alias="gamePartySheet")
    game_party_sheet_revision: Annotated[StrictInt, Field(ge=0)] = Field(
        default=0, alias="gamePartySheetRevision"
    )
    """SPEC §11: raised by one on every party-sheet save and every applied `sheet="party"`
    command; a party save names the revision it was opened on (`gmtags.state.saves`)."""
    ruleset_live: dict[str, LiveEntry] = Field(default={}, alias="rulesetLive")
    ruleset_clocks: tuple[Clock, ...] = Field(default=(), alias="rulesetClocks")
    ruleset_layers: tuple[LayerId, ...] = Field(default=(), alias="rulesetLayers")
    """SPEC §4: the ids of the ruleset's `layers` active in this game (absent: none). Ids the
    ruleset has no layer for are kept and ignored in play (`gmtags.ruleset.layers`)."""

    @model_validator(mode="before")
    @classmethod
    def _normalise_live_keys(cls, data: Any) -> Any:
        """SPEC §4: `rulesetLive` is keyed by normalised names; `$party` is reserved."""
        if not isinstance(data, dict):
            return data
        live = data.get("rulesetLive", data.get("ruleset_live"))
        if not isinstance(live, dict):
            return data
        keyed: dict[str, Any] = {}
        for name, entry in live.items():
            key = name if name == PARTY_KEY else normalize_name(str(name))
            if key in keyed:
                raise ValueError(f"rulesetLive: two entries normalise to {key!r}")
            keyed[key] = entry
        field = "rulesetLive" if "rulesetLive" in data else "ruleset_live"
        return {**data, field: keyed}

    @model_validator(mode="after")
    def _distinct_clocks(self) -> Self:
        seen: set[str] = set()
        for clock in self.ruleset_clocks:
            key = clock_key(clock.name)
            if key in seen:
                raise ValueError(f"rulesetClocks: two clocks are named {clock.name!r}")
            seen.add(key)
        return self

    def to_json_dict(self) -> dict[str, Any]:
        """The snapshot as JSON data with storage names; values at their default are left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_defaults=True)

    def to_json(self, indent: int | None = None) -> str:
        """The snapshot as strict JSON text (keys in model order, UTF-8 kept as is).

        Issue 11: `gmtags.jsonfile.dumps` writes no NaN or infinity and a lone
        surrogate half as its `\\uhhhh` escape, so the text always encodes as UTF-8.
        """
        return dumps(self.to_json_dict(), indent=indent)

    def with_clocks(self, clocks: tuple[Clock, ...]) -> Snapshot:
        """A new snapshot whose clocks are `clocks` (each already a validated `Clock`).

        `model_copy` does not validate, so the one snapshot-wide rule on clocks
        (distinct names) is checked here.
        """
        keys = {clock_key(clock.name) for clock in clocks}
        if len(keys) != len(clocks):
            raise ValueError("two clocks would share a name")
        return self.model_copy(update={"ruleset_clocks": tuple(clocks)})


def card_problems(data: Any, where: str, party: bool = False) -> list[Problem]:
    """What keeps `data` from being one card (a party sheet with `party`), each problem at
    its path under `where` (`card.abilities.str`): what a command's `--card` and the pages'
    bodies are held to, as a snapshot holds them."""
    if not isinstance(data, dict):
        return [Problem(where, "a card is a JSON object")]
    shape: type[CharacterCard] | type[PartySheet] = PartySheet if party else CharacterCard
    try:
        shape.model_validate(data)
    except ValidationError as error:
        return [Problem(json_path((where, *e["loc"])), e["msg"]) for e in error.errors()]
    return []


def load_snapshot(source: str | os.PathLike[str] | dict[str, Any]) -> Snapshot:
    """Read a snapshot from a JSON file or object; `SnapshotError` names every bad path.

    Issue 11: the file is strict JSON (`gmtags.jsonfile.loads`: no NaN or
    infinities, no integer of more than 21 digits, no nesting past 100
    levels), refused at its line and column; an object handed over is held to
    the same rules, refused at its JSON path.
    """
    if isinstance(source, dict):
        data: Any = source
        problem = data_problem(data)
        if problem is not None:
            location, message = problem
            raise SnapshotError([Problem(json_path(location), message)])
    else:
        with open(source, "rb") as handle:
            raw = handle.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            message = f"not UTF-8 text at byte {error.start}"
            raise SnapshotError([Problem("(file)", message)]) from None
        try:
            data = loads(text)
        except JsonTextError as error:
            raise SnapshotError([Problem("(file)", str(error))]) from None
    try:
        return Snapshot.model_validate(data)
    except ValidationError as error:
        raise SnapshotError(
            Problem(json_path(item["loc"]), item["msg"]) for item in error.errors()
        ) from None
