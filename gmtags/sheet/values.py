"""Every number on one character's sheet, read from the card and the live state.

002, "La ficha" and "Todo lector de números los nombra con una referencia de
valor". A `SheetValues` is built for one character and one snapshot; each value
is worked out at most once (memoised), so a read walks the sheet top to bottom
once and two reads of the same value always agree.

Live reads (`livePool`, `liveTrack`, an `enumTable` on a `liveState`) take the
live state as the snapshot holds it, or the state play starts from when the
character has none yet: a pool full or empty by its `start`/`startFrom`, a
track at its `default`, a wound track with no marks (002).

Evaluation never raises on stored data: a stored value of the wrong type reads
as the field's blank default, a number out of range is clamped, and anything
hidden by `hideWhen` reads as the rules say (ENGINE-NOTES §8). Import
validation has already refused dangling references and cycles; an id that is
still unknown (a programmer error in the caller) reads 0.

`itemStat` reads the card's `items` (`gmtags.sheet.items`), a live read like
the others (002): it flows into every value that reads it in play, and import
validation refuses it wherever live reads are refused.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from gmtags.memo import IdentityMemo
from gmtags.ruleset.memo import per_ruleset
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.refs import ListSum, RulesetValueRef, step_lookup
from gmtags.ruleset.resolution.shared import ProficiencyTier
from gmtags.ruleset.sheet import (
    Ability,
    CheckEntry,
    EnumTableDerived,
    HideWhen,
    LivePool,
    LiveState,
    LiveTrack,
    MaxDerived,
    MinDerived,
    MultiplyDerived,
    NumberColumn,
    ScaleDerived,
    SheetList,
    StepTableDerived,
    SumDerived,
    UntrainedBy,
    UntrainedWord,
)
from gmtags.sheet import items, wounds
from gmtags.state.snapshot import EMPTY_LIVE, CharacterCard, LiveEntry, SkillEntry

Scalar = str | int | float | bool
Row = dict[str, Scalar]
T = TypeVar("T")

_MISSING = object()


@dataclass(frozen=True, slots=True)
class CheckParts:
    """How a skill's or save's number is made, part by part (000, "Tipos de resolución").

    `uncapped` = ability modifier + tier bonus + free bonus + untrained `by`;
    `number` = min(uncapped, cap) (002, "Una habilidad o salvación puede llevar
    un cap"). `untrained` is the rule in force: "normal" once the entry is
    trained or for a character without a sheet.
    """

    ability: str | None
    ability_modifier: float
    tier: ProficiencyTier
    tier_bonus: float
    free_bonus: float
    untrained: UntrainedWord | UntrainedBy
    uncapped: float
    cap: int | None
    number: float

    @property
    def untrained_by(self) -> int:
        """The untrained rule's `by` (0 unless the rule is `{by}`)."""
        return self.untrained.by if isinstance(self.untrained, UntrainedBy) else 0

    @property
    def capped(self) -> bool:
        """True when the cap held the number down."""
        return self.cap is not None and self.cap < self.uncapped


def round_by(value: float, mode: str) -> int:
    """Round as a ruleset says: `down` (default), `up` or `nearest` (halves up)."""
    if mode == "up":
        return math.ceil(value)
    if mode == "nearest":
        return math.floor(value + 0.5)
    return math.floor(value)


def whole(value: float) -> int:
    """A number used as a count (a maximum, a pool): rounded down."""
    return math.floor(value) if math.isfinite(value) else 0


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def blank_value(shape: Any) -> Scalar:
    """The value a blank sheet starts with (SCHEMA-NOTES §6, blank-build defaults).

    A number takes its `default`, else 0 clamped to its range; a boolean false;
    an enum its `default`, else its first value; text and dice their default or "".
    """
    kind = shape.type
    value: Scalar
    if kind == "number":
        value = shape.default if shape.default is not None else min(max(0, shape.min), shape.max)
    elif kind == "boolean":
        value = bool(shape.default)
    elif kind == "enum":
        value = shape.default if shape.default is not None else shape.values[0]
    else:
        value = shape.default if shape.default is not None else ""
    return value


def read_value(shape: Any, stored: object) -> Scalar:
    """A stored field or cell value as the sheet reads it, never raising.

    Wrong types read as the blank value; numbers are clamped to their range (and
    rounded down when the shape is an integer); an enum value the shape no
    longer offers reads as its default; text is cut to its length.

    A game's layers remove enum values (SPEC §4): the ruleset it plays
    (`gmtags.ruleset.played.effective_ruleset`) holds the narrowed field, so a
    removed value reads as the layer's default here, and so in every check and
    `hideWhen` that reads the field (002: "un valor enum que el conjunto ya no
    ofrece es el predeterminado del campo"; "Esa fila nunca se lee mientras la
    capa está activa").
    """
    kind = shape.type
    if stored is None:
        return blank_value(shape)
    if kind == "number":
        number = _number(stored)
        if number is None:
            return blank_value(shape)
        if shape.integer:
            number = math.floor(number)
        return min(max(number, shape.min), shape.max)  # type: ignore[no-any-return]
    if kind == "boolean":
        return stored if isinstance(stored, bool) else blank_value(shape)
    if kind == "enum":
        return stored if isinstance(stored, str) and stored in shape.values else blank_value(shape)
    if not isinstance(stored, str):
        return blank_value(shape)
    limit = getattr(shape, "max_length", None)
    return stored[:limit] if isinstance(limit, int) else stored


_START = EMPTY_LIVE
"""The live state play starts from: nothing moved (shared, since entries are immutable)."""


@dataclass(frozen=True, slots=True)
class _SheetIndex:
    """A sheet's entries by id, built once per ruleset."""

    fields: dict[str, Any]
    abilities: dict[str, Ability]
    skills: dict[str, CheckEntry]
    saves: dict[str, CheckEntry]
    derived: dict[str, Any]
    lists: dict[str, SheetList]
    pools: dict[str, LivePool]
    tracks: dict[str, LiveTrack]
    states: dict[str, LiveState]


@per_ruleset
def _index(ruleset: Ruleset) -> _SheetIndex:
    sheet = ruleset.sheet
    return _SheetIndex(
        fields={f.id: f for f in sheet.fields},
        abilities={a.id: a for a in sheet.abilities},
        skills={s.id: s for s in sheet.skills},
        saves={s.id: s for s in sheet.saves},
        derived={d.id: d for d in sheet.derived},
        lists={lst.id: lst for lst in sheet.lists},
        pools={p.id: p for p in sheet.live.pools},
        tracks={t.id: t for t in sheet.live.tracks},
        states={s.id: s for s in sheet.live.states},
    )


class SheetValues:
    """One character's sheet numbers for one snapshot (a card and its live entry).

    `card=None` is a character without a sheet: every stored value reads as the
    blank sheet's and there is no training to read. `live=None` reads the live
    state play starts from.
    """

    def __init__(
        self, ruleset: Ruleset, card: CharacterCard | None, live: LiveEntry | None
    ) -> None:
        self.ruleset = ruleset
        self.sheet = ruleset.sheet
        self.card = card
        self.live = live if live is not None else _START
        self._memo: dict[tuple[str, str], Any] = {}
        self.check_numbers: dict[tuple[str | None, ...], Any] = {}
        """The numbers of the checks read on this sheet (`gmtags.sheet.numbers`), by check."""
        index = _index(ruleset)
        self._fields = index.fields
        self._abilities = index.abilities
        self._skills = index.skills
        self._saves = index.saves
        self._derived = index.derived
        self._lists = index.lists
        self._pools = index.pools
        self._tracks = index.tracks
        self._states = index.states
        self._tiers = ruleset.resolution_common.proficiency_tiers

    def _once(self, kind: str, key: str, work: Callable[[], T]) -> T:
        slot = (kind, key)
        found = self._memo.get(slot, _MISSING)
        if found is _MISSING:
            found = work()
            self._memo[slot] = found
        return found  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ refs

    def value(self, ref: RulesetValueRef) -> float:
        """The number a value reference reads (002, "Todo lector de números…")."""
        key = ref.key
        if key == "const":
            return ref.const if ref.const is not None else 0
        if key == "listSum":
            assert ref.list_sum is not None
            return self.list_sum(ref.list_sum)
        if key == "itemStat":
            assert ref.item_stat is not None
            return items.item_stat(self.ruleset, self.held_items(), ref.item_stat)
        target = ref.target or ""
        if key == "liveTrack":
            return self.track_read(target, ref.track_read)
        reader = self._READERS[key]
        return reader(self, target)

    def field_number(self, field_id: str) -> float:
        """A number field's value (a boolean field reads 1 or 0; anything else 0).

        A field hidden by `hideWhen` is not on the sheet (ENGINE-NOTES §8), so a
        reference to it reads 0, like a hidden derived value, pool or track.
        """
        shape = self._fields.get(field_id)
        if shape is None or self.hidden(shape.hide_when):
            return 0
        value = self.field(field_id)
        if isinstance(value, bool):
            return 1 if value else 0
        return value if isinstance(value, int | float) else 0

    def held_items(self) -> tuple[items.HeldItem, ...]:
        """The card's `items` that can contribute to `itemStat` (SPEC §4), read once."""
        return self._once("items", "", lambda: items.held_items(self.ruleset, self.card))

    # ---------------------------------------------------------------- fields

    def field(self, field_id: str) -> Scalar:
        """A field's value as the sheet shows it (its blank value when unset)."""

        def work() -> Scalar:
            shape = self._fields.get(field_id)
            if shape is None:
                return 0
            stored = None if self.card is None else self.card.fields.get(field_id)
            return read_value(shape, stored)

        return self._once("field", field_id, work)

    def hidden(self, rule: HideWhen | None) -> bool:
        """Whether `hideWhen` hides an element: it compares the field's shown value (002)."""
        if rule is None:
            return False
        shown = self.field(rule.field)
        if "equals" in rule.model_fields_set:
            return _same(shown, rule.equals)
        if "not_equals" in rule.model_fields_set:
            return not _same(shown, rule.not_equals)
        return any(_same(shown, item) for item in rule.in_ or [])

    # ------------------------------------------------------------- abilities

    def ability_score(self, ability_id: str) -> float:
        """An ability's score: stored and clamped, or computed from `value` refs (004, 1.156)."""

        def work() -> float:
            ability = self._abilities.get(ability_id)
            if ability is None:
                return 0
            if ability.value is not None:
                total = sum(self.value(ref) for ref in ability.value)
                return min(max(total, ability.min), ability.max)
            return _stored_score(ability, self.card)

        return self._once("abilityScore", ability_id, work)

    def ability_mod(self, ability_id: str) -> float:
        """The modifier a score gives (000, "Tipos de resolución": `abilityModifier`)."""
        if ability_id not in self._abilities:
            return 0
        score = self.ability_score(ability_id)
        modifier = self.ruleset.resolution_common.ability_modifier
        if modifier.op == "floorHalfMinusTen":
            return math.floor((score - 10) / 2)
        if modifier.op == "stepTable" and modifier.table is not None:
            return step_lookup(modifier.table, score)
        return score

    def ability_mod_from_field(self, field_id: str) -> float:
        """`abilityModFromField`: the ability an enum field names; any other value reads 0."""
        named = self.field(field_id)
        return self.ability_mod(named) if isinstance(named, str) else 0

    # --------------------------------------------------------- skills, saves

    def proficiency_bonus(self) -> float:
        """The proficiency bonus multiplying tiers read (0 when the ruleset has none)."""

        def work() -> float:
            proficiency = self.ruleset.resolution_common.proficiency
            return 0 if proficiency is None else self.value(proficiency.bonus)

        return self._once("proficiency", "", work)

    def tier(self, kind: str, entry_id: str) -> ProficiencyTier:
        """A skill's or save's training tier; unset or unknown tiers are the first (untrained)."""
        stored = self._stored_check(kind, entry_id)
        tier_id = stored if isinstance(stored, str) else getattr(stored, "tier", None)
        for tier in self._tiers:
            if tier.id == tier_id:
                return tier
        return self._tiers[0]

    def trained(self, kind: str, entry_id: str) -> bool:
        """True when the entry is above the first tier."""
        return self.tier(kind, entry_id) is not self._tiers[0]

    def free_bonus(self, kind: str, entry_id: str) -> float:
        """The free per-skill or per-save bonus, clamped to `bonusRange`."""
        stored = self._stored_check(kind, entry_id)
        # A stored entry's own `bonus` counts only when written: its default 0
        # must not hide the card's `bonuses` (SCHEMA-NOTES §13).
        written = isinstance(stored, SkillEntry) and "bonus" in stored.model_fields_set
        bonus = _number(stored.bonus) if written and isinstance(stored, SkillEntry) else None
        if bonus is None and self.card is not None:
            bonus = _number(self.card.bonuses.get(entry_id))
        limits = self.sheet.bonus_range
        return min(max(bonus or 0, limits.min), limits.max)

    def tier_bonus(self, tier: ProficiencyTier) -> float:
        """Trained bonus = round(multiplier × proficiency bonus) + flat (SCHEMA-NOTES §5)."""
        scaled = round_by(tier.multiplier * self.proficiency_bonus(), tier.round)
        return scaled + tier.flat

    def entry(self, kind: str, entry_id: str) -> CheckEntry | None:
        """The skill (kind "skill") or save (kind "save") with this id."""
        table = self._skills if kind == "skill" else self._saves
        return table.get(entry_id)

    def untrained_rule(self, kind: str, entry_id: str) -> UntrainedWord | UntrainedBy:
        """The untrained rule in force for an untrained entry: its own, else its section's.

        002, "Qué hace una prueba sin entrenamiento.": the rule applies only at the
        first tier, and a character without a sheet has no training to read.
        """
        entry = self.entry(kind, entry_id)
        if entry is None or self.card is None or self.trained(kind, entry_id):
            return "normal"
        if entry.untrained is not None:
            return entry.untrained
        section = next((s for s in self.sheet.sections if s.id == entry.section), None)
        if section is not None and section.untrained is not None:
            return section.untrained
        return "normal"

    def check_parts(
        self, kind: str, entry_id: str, ability_id: str | None = None
    ) -> CheckParts | None:
        """The parts of a skill's or save's number; None for an unknown entry.

        Ability modifier (of `ability_id` when given, for `with=`) + tier bonus +
        free bonus + untrained `by` (002, "Qué hace una prueba sin
        entrenamiento.": part of the number, before any cap), then capped at the
        cap's value rounded down (002, "Una habilidad o salvación puede llevar
        un cap": a `with=` change is worked out before the cap, then capped again).
        """
        entry = self.entry(kind, entry_id)
        if entry is None:
            return None
        ability = ability_id if ability_id is not None else entry.ability
        modifier = self.ability_mod(ability) if ability else 0
        tier = self.tier(kind, entry_id)
        tier_bonus = self.tier_bonus(tier)
        free = self.free_bonus(kind, entry_id)
        rule = self.untrained_rule(kind, entry_id)
        by = rule.by if isinstance(rule, UntrainedBy) else 0
        uncapped = modifier + tier_bonus + free + by
        cap = None if entry.cap is None else whole(self.value(entry.cap))
        number = uncapped if cap is None else min(uncapped, cap)
        return CheckParts(ability, modifier, tier, tier_bonus, free, rule, uncapped, cap, number)

    def check_number(self, kind: str, entry_id: str, ability_id: str | None = None) -> float:
        """The number a skill or save shows and rolls, after its cap (0 for an unknown entry)."""
        parts = self.check_parts(kind, entry_id, ability_id)
        return 0 if parts is None else parts.number

    def skill_mod(self, skill_id: str) -> float:
        """`skillMod`: the number a skill shows (capped)."""
        return self._once("skillMod", skill_id, lambda: self.check_number("skill", skill_id))

    def save_mod(self, save_id: str) -> float:
        """`saveMod`: the number a save shows (capped)."""
        return self._once("saveMod", save_id, lambda: self.check_number("save", save_id))

    def _stored_check(self, kind: str, entry_id: str) -> SkillEntry | str | None:
        if self.card is None:
            return None
        table = self.card.skills if kind == "skill" else self.card.saves
        return table.get(entry_id)

    # --------------------------------------------------------------- derived

    def derived(self, derived_id: str) -> float:
        """A derived value; a hidden one reads 0, as everything hidden does."""

        def work() -> float:
            entry = self._derived.get(derived_id)
            if entry is None or self.hidden(entry.hide_when):
                return 0
            return self._compute(entry)

        return self._once("derived", derived_id, work)

    def _compute(self, entry: Any) -> float:
        if isinstance(entry, SumDerived):
            return sum(self.value(ref) for ref in entry.of)
        if isinstance(entry, MinDerived):
            return min(self.value(ref) for ref in entry.of)
        if isinstance(entry, MaxDerived):
            return max(self.value(ref) for ref in entry.of)
        if isinstance(entry, MultiplyDerived):
            return math.prod(self.value(ref) for ref in entry.of)
        if isinstance(entry, ScaleDerived):
            return round_by(self.value(entry.of) * entry.multiplier, entry.round)
        if isinstance(entry, StepTableDerived):
            return step_lookup(entry.table, self.value(entry.from_))
        if isinstance(entry, EnumTableDerived):
            return self._enum_table(entry)
        return 0

    def _enum_table(self, entry: EnumTableDerived) -> float:
        """002, "Números que lo siguen.": a row per value; missing or hidden reads `default`."""
        source = entry.from_
        if source.live_state is not None:
            state = self._states.get(source.live_state)
            if state is None or self.hidden(state.hide_when):
                return entry.default
            key: Scalar = self.state_value(source.live_state)
        else:
            key = self.field(source.field or "")
        found = entry.table.get(key) if isinstance(key, str) else None
        return found if found is not None else entry.default

    # ----------------------------------------------------------------- lists

    def sheet_list(self, list_id: str) -> SheetList | None:
        """A list's definition."""
        return self._lists.get(list_id)

    def rows(self, list_id: str) -> list[Row]:
        """A list's rows with every cell read; a hidden list has none (002).

        Empty cells read their column's blank value; computed `sum` columns
        (004, "Columnas de lista calculadas") add their columns of the same row,
        clamped to their own range.
        """

        def work() -> list[Row]:
            definition = self._lists.get(list_id)
            if definition is None or self.hidden(definition.hide_when) or self.card is None:
                return []
            stored = self.card.lists.get(list_id, [])[: definition.max_items]
            return [self._row(definition, row) for row in stored if isinstance(row, dict)]

        return self._once("rows", list_id, work)

    def _row(self, definition: SheetList, stored: dict[str, Any]) -> Row:
        row: Row = {}
        for column in definition.columns:
            row[column.id] = read_value(column, stored.get(column.id))
        for column in definition.columns:
            if isinstance(column, NumberColumn) and column.sum:
                total = sum(_as_number(row.get(part)) for part in column.sum)
                row[column.id] = read_value(column, total)
        return row

    def list_sum(self, spec: ListSum) -> float:
        """`listSum`: sum a number column, or count rows, of the rows that match.

        002: `onlyWhen` keeps rows whose boolean column is on; 004 (1.205):
        `where` keeps rows whose cell equals a value, `count: true` counts them.
        """
        total: float = 0
        for row in self.rows(spec.list):
            if spec.only_when is not None and row.get(spec.only_when) is not True:
                continue
            if spec.where is not None and not _same(row.get(spec.where.column), spec.where.equals):
                continue
            total += 1 if spec.count else _as_number(row.get(spec.column or ""))
        return total

    # ------------------------------------------------------------------ live

    def pool(self, pool_id: str) -> LivePool | None:
        """A declared pool that this character has: not hidden, maximum above 0.

        ENGINE-NOTES §8: a hidden pool is not on the sheet and a pool whose
        maximum is 0 or less does not exist for the character.
        """
        definition = self._pools.get(pool_id)
        if definition is None or self.hidden(definition.hide_when):
            return None
        return definition if self.pool_max(pool_id) > 0 else None

    def pool_max(self, pool_id: str) -> int:
        """A pool's maximum, read from its `max` reference (never live state)."""

        def work() -> int:
            definition = self._pools.get(pool_id)
            return 0 if definition is None else whole(self.value(definition.max))

        return self._once("poolMax", pool_id, work)

    def pool_start(self, pool_id: str) -> int:
        """What a pool holds before play moves it: full, empty, or `startFrom` (004, 1.158)."""
        definition = self._pools.get(pool_id)
        if definition is None:
            return 0
        top = self.pool_max(pool_id)
        if definition.start_from is not None:
            return min(max(whole(self.value(definition.start_from)), 0), top)
        return 0 if definition.starts_empty else top

    def pool_value(self, pool_id: str) -> int:
        """`livePool`: what a pool holds now (0 when hidden or absent); stored values win."""
        if self.pool(pool_id) is None:
            return 0
        stored = self.live.pools.get(pool_id)
        top = self.pool_max(pool_id)
        if stored is None:
            return self.pool_start(pool_id)
        return min(max(stored, 0), top)

    def track(self, track_id: str) -> LiveTrack | None:
        """A declared track this character has (a hidden plain track is not on the sheet)."""
        definition = self._tracks.get(track_id)
        if definition is None or (not definition.is_wound and self.hidden(definition.hide_when)):
            return None
        return definition

    def track_bounds(self, track_id: str) -> tuple[int, int]:
        """A plain track's (min, max); `max` may be a reference (002)."""

        def work() -> tuple[int, int]:
            definition = self._tracks.get(track_id)
            if definition is None:
                return (0, 0)
            top = definition.max
            high = top if isinstance(top, int) else whole(self.value(top))
            return (definition.min, max(high, definition.min))

        return self._once("trackBounds", track_id, work)

    def track_start(self, track_id: str) -> int:
        """Where a plain track starts: `startFrom`, else `default`, else its min; clamped."""
        definition = self._tracks.get(track_id)
        if definition is None:
            return 0
        low, high = self.track_bounds(track_id)
        if definition.start_from is not None:
            start = whole(self.value(definition.start_from))
        else:
            start = definition.default if definition.default is not None else low
        return min(max(start, low), high)

    def track_value(self, track_id: str) -> int:
        """A plain track's value now (stored values win, clamped to its range)."""
        if self.track(track_id) is None:
            return 0
        stored = self.live.tracks.get(track_id)
        if stored is None:
            return self.track_start(track_id)
        low, high = self.track_bounds(track_id)
        return min(max(stored, low), high)

    def track_read(self, track_id: str, read: str = "value") -> float:
        """`liveTrack` with `read`: value, filled (above min), remaining (to max) or penalty."""
        return self._once(
            "trackRead", f"{track_id}:{read}", lambda: self._track_read(track_id, read)
        )

    def _track_read(self, track_id: str, read: str) -> float:
        definition = self.track(track_id)
        if definition is None:
            return 0
        if definition.is_wound:
            shape = self.wound_track(track_id)
            state = self.wound_state(track_id)
            if shape is None:
                return 0
            if read == "penalty":
                return wounds.penalty(shape, state)
            if read == "remaining":
                return wounds.remaining(shape, state)
            return wounds.filled(shape, state)
        value = self.track_value(track_id)
        low, high = self.track_bounds(track_id)
        if read == "filled":
            return value - low
        if read == "remaining":
            return high - value
        return value

    def wound_track(self, track_id: str) -> wounds.WoundTrack | None:
        """The wound track's shape for this character: levels plus list rows, or boxes."""

        def work() -> wounds.WoundTrack | None:
            definition = self._tracks.get(track_id)
            if definition is None or not definition.is_wound or not definition.kinds:
                return None
            kinds = tuple(wounds.WoundKind(k.id, k.label, k.severity) for k in definition.kinds)
            common = {
                "id": definition.id,
                "label": definition.label,
                "kinds": kinds,
                "fill": definition.fill_mode,
                "on_full": definition.when_full,
            }
            if definition.levels is not None:
                levels = tuple(wounds.WoundLevel(lv.label, lv.penalty) for lv in definition.levels)
                if definition.extra is not None:
                    extra = definition.extra
                    rows = [
                        (
                            whole(_as_number(row.get(extra.count_column))),
                            whole(_as_number(row.get(extra.penalty_column))),
                        )
                        for row in self.rows(extra.list)
                    ]
                    levels = wounds.extend_levels(levels, rows)
                return wounds.WoundTrack(levels=levels, **common)  # type: ignore[arg-type]
            top = definition.max
            count = top if isinstance(top, int) else whole(self.value(top))
            boxes = min(max(count, 0), wounds.MAX_TRACK_LENGTH)
            penalty = None
            if definition.boxes is not None:
                rule = definition.boxes.penalty
                table = tuple((int(a), int(b)) for a, b in rule.table)
                penalty = wounds.BoxPenalty(rule.by, table)
            return wounds.WoundTrack(boxes=boxes, box_penalty=penalty, **common)  # type: ignore[arg-type]

        return self._once("woundTrack", track_id, work)

    def wound_state(self, track_id: str) -> wounds.WoundState:
        """The stored marks and overflow of a wound track (none when unset), normalised."""

        def work() -> wounds.WoundState:
            marks = tuple(self.live.marks.get(track_id, ()))
            overflow = self.live.overflow.get(track_id, 0)
            shape = self.wound_track(track_id)
            state = wounds.WoundState(marks, overflow)
            return state if shape is None else wounds.normalize(shape, state)

        return self._once("woundState", track_id, work)

    def state_value(self, state_id: str) -> str:
        """A live state's value: the stored one when the state still offers it, else default."""
        definition = self._states.get(state_id)
        if definition is None:
            return ""
        stored = self.live.states.get(state_id)
        return stored if stored in definition.values else definition.start

    def live_state(self, state_id: str) -> LiveState | None:
        """A declared live state this character has (not hidden)."""
        definition = self._states.get(state_id)
        if definition is None or self.hidden(definition.hide_when):
            return None
        return definition

    _READERS: dict[str, Callable[[SheetValues, str], float]] = {
        "field": field_number,
        "derived": derived,
        "abilityScore": ability_score,
        "abilityMod": ability_mod,
        "abilityModFromField": ability_mod_from_field,
        "skillMod": skill_mod,
        "saveMod": save_mod,
        "livePool": pool_value,
    }


def _stored_score(ability: Ability, card: CharacterCard | None) -> float:
    stored = None if card is None else _number(card.abilities.get(ability.id))
    if stored is None:
        return ability.default
    return min(max(stored, ability.min), ability.max)


def _same(shown: object, wanted: object) -> bool:
    """Compare a shown value with a rule's value: numbers by value, never bool with number."""
    if isinstance(shown, bool) or isinstance(wanted, bool):
        return shown is wanted
    return shown == wanted


def _as_number(value: object) -> float:
    if isinstance(value, bool):
        return 1 if value else 0
    number = _number(value)
    return 0 if number is None else number


def pool_group(ruleset: Ruleset, group: str) -> Sequence[LivePool]:
    """The pools of a group, in the order the sheet lists them (002, "Descansos")."""
    return [pool for pool in ruleset.sheet.live.pools if pool.group == group]


_SHARED: IdentityMemo[SheetValues] = IdentityMemo(256)


def shared_values(
    ruleset: Ruleset, card: CharacterCard | None, live: LiveEntry | None
) -> SheetValues:
    """The sheet values of this card and live entry, one instance while they are unchanged.

    Issue 16: cards and live entries are frozen, and an unchanged one is the same object in
    every snapshot after it, so the numbers one check worked out are there for the next.
    Only play reads through this (the values are read, never changed).
    """
    return _SHARED.get((ruleset, card, live), None, lambda: SheetValues(ruleset, card, live))
