"""Live sheet values in play, as pure transitions on one `LiveEntry`.

002, "La ficha" (`live`: pools, tracks, text, conditions, states), "Estados
vivos: una forma, una postura, una luz", "Contadores de heridas…" through
"Niveles que añade una lista", and "Descansos"; 004, "Una reserva viva puede
declarar startFrom"; ENGINE-NOTES §6–§8 for what the seeds leave open.

Every function takes the sheet's definitions and bounds (a `SheetValues`, or
for pool commands the pools a sheet has, `PoolSpec`s), the entry as stored and
what the tag wrote, and returns either `Changed` (a new entry and the receipt's
`now` text) or `Refused` (a reason). Nothing is ever mutated; a refusal hands
nothing back to store.

Storage is sparse (ENGINE-NOTES §8, SPEC §4): only a value moved from where it
starts is written, and a value back at its start is removed, so an untouched
full pool follows its maximum. Current values are always read from the entry
the function is given, never from `SheetValues.live`, so the steps of a rest
read the values the steps before them left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

from gmtags.limits import DEFAULT_LIMITS
from gmtags.ruleset.rests import Rest, RestBy, RestoreStep
from gmtags.ruleset.sheet import LiveState, LiveTrack
from gmtags.sheet import wounds
from gmtags.sheet.values import SheetValues, round_by, whole
from gmtags.state.snapshot import LiveEntry

MAX_AMOUNT = DEFAULT_LIMITS.max_amount
"""ENGINE-NOTES §6: the largest amount a command may move, unless the caller's `Limits` say
another (`most=`)."""

MAX_LIVE_NUMBER = 1_000_000
"""The largest live number stored, as the reference engine holds every live value."""

TRUE_WORDS = ("on", "add", "true")
FALSE_WORDS = ("off", "remove", "false")
"""ENGINE-NOTES §6: the words a condition command's `state` may use (none at all means on)."""

Shift = Literal["to", "by"]


@dataclass(frozen=True, slots=True)
class PoolSpec:
    """One pool a sheet has right now: a declared pool or a list row's pool.

    `key` is where its value is stored (`pools.<key>`): the pool's id, or
    `<listId>:<lowercased trimmed name>` for a list row (ENGINE-NOTES §8).
    `start` is what it holds before play moves it (full, empty or `startFrom`).
    """

    key: str
    label: str
    max: int
    start: int
    allow_temp: bool = False
    group: str | None = None
    list_id: str | None = None
    recharge: str | None = None


@dataclass(frozen=True, slots=True)
class Changed:
    """A command that applied: the entry to store and the receipt's `now`."""

    entry: LiveEntry
    now: str


@dataclass(frozen=True, slots=True)
class Refused:
    """A command that changed nothing, and the kebab-case reason why."""

    reason: str


Outcome = Changed | Refused


def same_name(written: str, name: str) -> bool:
    """Names compare trimmed and without case (ENGINE-NOTES §6: ids and labels alike)."""
    return written.strip().casefold() == name.strip().casefold()


class Named(Protocol):
    """Anything a command may name by its id or its label."""

    @property
    def id(self) -> str: ...

    @property
    def label(self) -> str: ...


N = TypeVar("N", bound=Named)


def named(items: Iterable[N], written: str) -> N | None:
    """The first of `items` whose id or label is `written` (trimmed, without case)."""
    return next(
        (item for item in items if same_name(written, item.id) or same_name(written, item.label)),
        None,
    )


def _clamp(value: int, low: int, high: int) -> int:
    return min(max(value, low), high)


def amount_ok(amount: int | None, *, zero: bool = False, most: int = MAX_AMOUNT) -> bool:
    """ENGINE-NOTES §6: an amount is a whole number 1..`most` (0 too where `zero`)."""
    return amount is not None and (0 if zero else 1) <= amount <= most


def is_empty(entry: LiveEntry) -> bool:
    """True when the entry stores nothing at all, so the snapshot may drop it (ENGINE-NOTES §8)."""
    return not (
        entry.pools
        or entry.temp
        or entry.tracks
        or entry.marks
        or entry.overflow
        or entry.states
        or entry.conditions
        or entry.text
        or entry.model_extra
    )


def _rebuilt(entry: LiveEntry, **parts: Any) -> LiveEntry:
    """The entry with some parts replaced, validated again (keys a front end stored are kept)."""
    data = entry.model_dump()
    data.update(parts)
    return LiveEntry.model_validate(data)


# ---------------------------------------------------------------------------
# Pools


def character_pools(values: SheetValues) -> tuple[PoolSpec, ...]:
    """Every pool a character has now: declared ones, then one per list row with `pools`.

    ENGINE-NOTES §8: a hidden pool, or one whose maximum is 0 or less, does not
    exist; a list row's pool is keyed `<listId>:<lowercased name>` and the
    first row with a name wins; a hidden list has no row pools. Row cells read
    as the sheet reads them (an empty `maxColumn` cell is its column default).
    List-row pools start full and never take temporary points.
    """
    pools: list[PoolSpec] = []
    for pool in values.sheet.live.pools:
        if values.pool(pool.id) is None:
            continue
        pools.append(
            PoolSpec(
                key=pool.id,
                label=pool.label,
                max=min(values.pool_max(pool.id), MAX_LIVE_NUMBER),
                start=min(values.pool_start(pool.id), MAX_LIVE_NUMBER),
                allow_temp=pool.allow_temp,
                group=pool.group,
            )
        )
    seen: set[str] = set()
    for sheet_list in values.sheet.lists:
        spec = sheet_list.pools
        if spec is None:
            continue
        for row in values.rows(sheet_list.id):
            name = row.get(spec.name_column)
            top = row.get(spec.max_column)
            if not isinstance(name, str) or not name.strip():
                continue
            if isinstance(top, bool) or not isinstance(top, int | float):
                continue
            most = min(whole(top), MAX_LIVE_NUMBER)
            key = f"{sheet_list.id}:{name.strip().lower()}"
            if most <= 0 or key in seen:
                continue
            seen.add(key)
            recharge = row.get(spec.recharge_column) if spec.recharge_column else None
            pools.append(
                PoolSpec(
                    key=key,
                    label=name.strip(),
                    max=most,
                    start=most,
                    list_id=sheet_list.id,
                    recharge=recharge if isinstance(recharge, str) and recharge else None,
                )
            )
    return tuple(pools)


def find_pool(pools: Sequence[PoolSpec], written: str) -> PoolSpec | Refused:
    """The pool a command names (ENGINE-NOTES §6, pool lookup).

    The exact key first, then a declared pool's id or label ignoring case, then
    a list row's name on its own: one row gives its pool, rows of several lists
    sharing the name give `ambiguous-pool`, none gives `unknown-pool`.
    """
    wanted = written.strip()
    if not wanted:
        return Refused("unknown-pool")
    for pool in pools:
        if pool.key == wanted:
            return pool
    for pool in pools:
        if pool.list_id is None and (same_name(wanted, pool.key) or same_name(wanted, pool.label)):
            return pool
    rows = [
        pool
        for pool in pools
        if pool.list_id is not None
        and (same_name(wanted, pool.key) or same_name(wanted, pool.label))
    ]
    if len(rows) == 1:
        return rows[0]
    return Refused("ambiguous-pool" if rows else "unknown-pool")


def pool_reading(pool: PoolSpec, entry: LiveEntry) -> tuple[int, int]:
    """A pool's value and temporary points now (002 "La ficha"): stored values win, clamped.

    A pool without `allowTemp` never shows temporary points, however the entry was written.
    """
    stored = entry.pools.get(pool.key)
    value = pool.start if stored is None else _clamp(stored, 0, pool.max)
    temp = _clamp(entry.temp.get(pool.key, 0), 0, MAX_LIVE_NUMBER) if pool.allow_temp else 0
    return value, temp


def pool_now(pool: PoolSpec, value: int, temp: int) -> str:
    """SPEC §3: a pool's `now` is `value/max`, plus ` +N temp` when it has temporary points."""
    return f"{value}/{pool.max}" + (f" +{temp} temp" if temp > 0 else "")


def _pool_parts(pool: PoolSpec, entry: LiveEntry, value: int, temp: int) -> dict[str, Any]:
    """The `pools` and `temp` parts with this pool written sparsely (start and 0 are removed)."""
    pools = dict(entry.pools)
    temps = dict(entry.temp)
    if value == pool.start:
        pools.pop(pool.key, None)
    else:
        pools[pool.key] = value
    if temp > 0:
        temps[pool.key] = temp
    else:
        temps.pop(pool.key, None)
    return {"pools": pools, "temp": temps}


def with_pool(pool: PoolSpec, entry: LiveEntry, value: int, temp: int) -> LiveEntry:
    """The entry with the pool at `value` and `temp`, stored sparsely (ENGINE-NOTES §8)."""
    return _rebuilt(entry, **_pool_parts(pool, entry, value, temp))


def _set_pool(pool: PoolSpec, entry: LiveEntry, value: int, temp: int) -> Changed:
    return Changed(with_pool(pool, entry, value, temp), pool_now(pool, value, temp))


PoolChange = Callable[[PoolSpec, int, int, int], tuple[int, int] | Refused]
"""A pool op's rule: (the pool, its value, its temporary points, the amount) → the new
value and temporary points, or why not."""


def _change_pool(
    pools: Sequence[PoolSpec],
    entry: LiveEntry,
    pool: str,
    amount: int | None,
    change: PoolChange,
    *,
    zero: bool = False,
    most: int = MAX_AMOUNT,
) -> Outcome:
    """The pool a command names changed by `change`: lookups before amounts (ENGINE-NOTES
    §6), then the amount (1 up, or 0 up with `zero`, at most `most`), then the op's rule."""
    found = find_pool(pools, pool)
    if isinstance(found, Refused):
        return found
    if amount is None or not amount_ok(amount, zero=zero, most=most):
        return Refused("bad-amount")
    value, temp = pool_reading(found, entry)
    changed = change(found, value, temp, amount)
    return changed if isinstance(changed, Refused) else _set_pool(found, entry, *changed)


def _spent(_: PoolSpec, value: int, temp: int, amount: int) -> tuple[int, int] | Refused:
    return Refused("insufficient") if value < amount else (value - amount, temp)


def _restored(found: PoolSpec, value: int, temp: int, amount: int) -> tuple[int, int]:
    return min(found.max, value + amount), temp


def _damaged(_: PoolSpec, value: int, temp: int, amount: int) -> tuple[int, int]:
    soaked = min(temp, amount)
    return max(0, value - (amount - soaked)), temp - soaked


def _temp_set(found: PoolSpec, value: int, _: int, amount: int) -> tuple[int, int] | Refused:
    return (value, amount) if found.allow_temp else Refused("no-temp")


class PoolOp(Protocol):
    """A pool op: `(pools, entry, pool, amount, *, most=…)` → the outcome (ENGINE-NOTES §6)."""

    def __call__(
        self,
        pools: Sequence[PoolSpec],
        entry: LiveEntry,
        pool: str,
        amount: int | None,
        *,
        most: int = MAX_AMOUNT,
    ) -> Outcome: ...


def _pool_op(change: PoolChange, doc: str, *, zero: bool = False) -> PoolOp:
    """The pool op whose rule is `change` (`zero`: an amount of 0 is allowed)."""

    def op(
        pools: Sequence[PoolSpec],
        entry: LiveEntry,
        pool: str,
        amount: int | None,
        *,
        most: int = MAX_AMOUNT,
    ) -> Outcome:
        return _change_pool(pools, entry, pool, amount, change, zero=zero, most=most)

    op.__doc__ = doc
    return op


spend = _pool_op(
    _spent,
    """`op="spend"`: take `amount` from the pool; refused `insufficient`, never floored.

    ENGINE-NOTES §6. Temporary points are not spent (they only soak damage).""",
)
restore = _pool_op(
    _restored,
    """`op="restore"` (alias `heal`): raise the pool by `amount`, capped at its maximum.""",
)
damage_pool = _pool_op(
    _damaged,
    """`op="damage" pool=…`: drain temporary points first, then the value, floored at 0.

    ENGINE-NOTES §6: never refused for being larger than what is left.""",
)
set_temp = _pool_op(
    _temp_set,
    """`op="temp"`: SET the pool's temporary points to `amount` (0 allowed, clearing them).

    ENGINE-NOTES §6: refused `no-temp` unless the pool declares `allowTemp`.""",
    zero=True,
)


# ---------------------------------------------------------------------------
# Tracks: plain and wound


def find_track(values: SheetValues, written: str) -> LiveTrack | None:
    """A track on the sheet by id or label; a hidden plain track is not on it (002)."""
    return named((t for t in values.sheet.live.tracks if values.track(t.id) is not None), written)


def track_reading(values: SheetValues, track_id: str, entry: LiveEntry) -> int:
    """A plain track's value in `entry` (002): the stored one, clamped, else its start."""
    low, high = values.track_bounds(track_id)
    stored = entry.tracks.get(track_id)
    return values.track_start(track_id) if stored is None else _clamp(stored, low, high)


def _track_parts(
    values: SheetValues, track_id: str, entry: LiveEntry, value: int
) -> dict[str, Any]:
    tracks = dict(entry.tracks)
    if value == values.track_start(track_id):
        tracks.pop(track_id, None)
    else:
        tracks[track_id] = value
    return {"tracks": tracks}


def wound_reading(shape: wounds.WoundTrack, entry: LiveEntry) -> wounds.WoundState:
    """A wound track's marks and overflow in `entry`, read as 002 "Las reglas exactas…" says."""
    stored = wounds.WoundState(
        tuple(entry.marks.get(shape.id, ())), entry.overflow.get(shape.id, 0)
    )
    return wounds.normalize(shape, stored)


def _wound_parts(track_id: str, entry: LiveEntry, state: wounds.WoundState) -> dict[str, Any]:
    """Marks stored only while there are any; overflow only while above 0 (sparse)."""
    marks = dict(entry.marks)
    overflow = dict(entry.overflow)
    if state.marks:
        marks[track_id] = list(state.marks)
    else:
        marks.pop(track_id, None)
    if state.overflow > 0:
        overflow[track_id] = state.overflow
    else:
        overflow.pop(track_id, None)
    return {"marks": marks, "overflow": overflow}


def move_track(
    values: SheetValues, entry: LiveEntry, track: str, shift: Shift, number: int | None
) -> Outcome:
    """`op="track"` with `to` or `by`: set or move a plain track, clamped to its range.

    ENGINE-NOTES §6: refused `wrong-track` on a wound track (002, "Marcar
    durante el juego.": a number cannot say what kind the new marks are);
    `number` is None when the tag's number could not be read (`bad-amount`).
    """
    found = find_track(values, track)
    if found is None:
        return Refused("unknown-track")
    if found.is_wound:
        return Refused("wrong-track")
    if number is None or abs(number) > MAX_LIVE_NUMBER:
        return Refused("bad-amount")
    low, high = values.track_bounds(found.id)
    moved = number if shift == "to" else track_reading(values, found.id, entry) + number
    value = _clamp(moved, low, high)
    changed = _rebuilt(entry, **_track_parts(values, found.id, entry, value))
    return Changed(changed, f"{found.label} {value}")


def mark_wounds(
    values: SheetValues,
    entry: LiveEntry,
    track: str,
    kind: str | None,
    amount: int | None,
    box: int | None = None,
    *,
    most: int = MAX_AMOUNT,
) -> Outcome:
    """`op="damage" track=… kind=… amount=± box=…`: mark (or heal) a wound track.

    002, "Marcar durante el juego." and "Las reglas exactas…"; ENGINE-NOTES §7.
    A positive amount places that many marks of `kind` (refused `unknown-kind`
    for a kind the track lacks, `no-box` when a refusing track cannot take them
    all); a negative one heals, overflow first, then the lightest marks (of
    `kind` alone when the track has it). Refused `wrong-track` on a plain track;
    `bad-amount` for 0, more than 100000 either way, or a box outside 1..64
    (`box` is 0 when the tag's box could not be read). A mark without a kind
    does not say what it is: `malformed`.
    """
    found = find_track(values, track)
    if found is None:
        return Refused("unknown-track")
    shape = values.wound_track(found.id) if found.is_wound else None
    if shape is None:
        return Refused("wrong-track")
    if amount is None or amount == 0 or abs(amount) > most:
        return Refused("bad-amount")
    state = wound_reading(shape, entry)
    if amount < 0:
        outcome = wounds.heal(shape, state, -amount, kind)
    else:
        if kind is None or not kind.strip():
            return Refused("malformed")
        if box is not None and not 1 <= box <= wounds.MAX_TRACK_LENGTH:
            if wounds.find_kind(shape, kind) is None:
                return Refused("unknown-kind")
            return Refused("bad-amount")
        outcome = wounds.mark(shape, state, kind, amount, box)
    if outcome.reason is not None:
        return Refused(outcome.reason)
    changed = _rebuilt(entry, **_wound_parts(found.id, entry, outcome.state))
    return Changed(changed, wounds.now_text(shape, outcome.state, outcome.overflow_grew))


# ---------------------------------------------------------------------------
# Conditions, states and notes


def set_condition(values: SheetValues, entry: LiveEntry, condition: str, on: bool) -> Outcome:
    """`op="condition" condition=… state="on|off"`: switch a condition (SPEC §9).

    Conditions are stored as a list of ids; an id the ruleset no longer
    declares stays stored, untouched. `now` is `Label on|off`.
    """
    found = named(values.sheet.live.conditions, condition)
    if found is None:
        return Refused("unknown-condition")
    if not on:
        active = [item for item in entry.conditions if item != found.id]
    elif found.id in entry.conditions:
        active = list(entry.conditions)
    else:
        active = [*entry.conditions, found.id]
    changed = _rebuilt(entry, conditions=active)
    return Changed(changed, f"{found.label} {'on' if on else 'off'}")


def state_reading(state: LiveState, entry: LiveEntry) -> str:
    """A live state's value (002 "Estados vivos…"): the stored one while offered, else default."""
    stored = entry.states.get(state.id)
    return stored if stored is not None and stored in state.values else state.start


def state_label(state: LiveState, value: str) -> str:
    """How a state's value is shown (002 "Estados vivos…"): its `valueLabels` entry, or itself."""
    return (state.value_labels or {}).get(value, value)


def _state_parts(state: LiveState, entry: LiveEntry, value: str) -> dict[str, Any]:
    states = dict(entry.states)
    if value == state.start:
        states.pop(state.id, None)
    else:
        states[state.id] = value
    return {"states": states}


def set_state(values: SheetValues, entry: LiveEntry, state: str, value: str) -> Outcome:
    """`op="state" state=… value=…`: set a live state to one of its values.

    002, "Estados vivos…": the state is named by id or label and the value by
    itself or its label, ignoring case (ENGINE-NOTES §6, T1); a state the sheet
    lacks or hides is `unknown-state`, a value it does not offer `unknown-value`.
    Only a value moved from the default is stored. `now` is `Label ValueLabel`.
    """
    shown = (item for item in values.sheet.live.states if values.live_state(item.id) is not None)
    found = named(shown, state)
    if found is None:
        return Refused("unknown-state")
    chosen = next(
        (
            candidate
            for candidate in found.values
            if same_name(value, candidate) or same_name(value, state_label(found, candidate))
        ),
        None,
    )
    if chosen is None:
        return Refused("unknown-value")
    changed = _rebuilt(entry, **_state_parts(found, entry, chosen))
    return Changed(changed, f"{found.label} {state_label(found, chosen)}")


def write_note(values: SheetValues, entry: LiveEntry, field: str, value: str) -> Outcome:
    """`op="note" field=… value=…`: write a live text, cut to its `maxLength`.

    ENGINE-NOTES §6: an empty (or absent) value clears it. `now` is
    `Label: text`, or `Label cleared`.
    """
    found = named(values.sheet.live.text, field)
    if found is None:
        return Refused("unknown-field")
    text = value.strip()[: found.max_length].strip()
    notes = dict(entry.text)
    if text:
        notes[found.id] = text
    else:
        notes.pop(found.id, None)
    changed = _rebuilt(entry, text=notes)
    return Changed(changed, f"{found.label}: {text}" if text else f"{found.label} cleared")


# ---------------------------------------------------------------------------
# Rests


def _shift(by: RestBy, current: int, top: int) -> int:
    """002, "Descansos": `{const}` adds; `{fractionOfMax}` adds max(min, round(max × fraction))."""
    if by.const is not None:
        return current + by.const
    assert by.fraction_of_max is not None
    return current + max(by.min or 0, round_by(top * by.fraction_of_max, by.rounding))


def _target(step: RestoreStep, current: int, low: int, high: int) -> int:
    """Where a step puts a number: `to` max/min/n, or `by` from where it is."""
    if step.to is not None:
        return high if step.to == "max" else low if step.to == "min" else int(step.to)
    assert step.by is not None
    return _shift(step.by, current, high)


@dataclass(slots=True)
class _RestWork:
    """A rest in progress: the running entry and the changes its `now` reports."""

    entry: LiveEntry
    changes: list[str]


def _rest_pools(step: RestoreStep, pools: Sequence[PoolSpec], work: _RestWork) -> None:
    """A pool, poolGroup or listPools step; hidden pools and pools at max 0 are skipped.

    002, "Descansos": a `poolGroup` step with `fractionOfMax` moves each pool by
    its own fraction, unless `shared`, which works the fraction out on the whole
    group's maximum and hands it out in sheet order, each pool up to what it lacks.
    SPEC §9: `to: "min"` on a pool is 0.
    """
    key, name = step.target
    if key == "pool":
        targets = [pool for pool in pools if pool.list_id is None and pool.key == name]
    elif key == "poolGroup":
        targets = [pool for pool in pools if pool.list_id is None and pool.group == name]
    else:
        targets = [
            pool
            for pool in pools
            if pool.list_id == name and (step.recharge is None or pool.recharge in step.recharge)
        ]
    shared = None
    if step.shared and step.by is not None and step.by.fraction_of_max is not None:
        shared = _shift(step.by, 0, sum(pool.max for pool in targets))
    for pool in targets:
        value, temp = pool_reading(pool, work.entry)
        if shared is not None:
            given = _clamp(shared, 0, pool.max - value)
            shared -= given
            moved = value + given
        else:
            moved = _target(step, value, 0, pool.max)
        new = _clamp(moved, 0, pool.max)
        if new != value:
            work.changes.append(f"{pool.label} {new}/{pool.max}")
        work.entry = with_pool(pool, work.entry, new, temp)


def _rest_track(step: RestoreStep, values: SheetValues, work: _RestWork) -> None:
    """A track step; on a wound track it only heals (002, "Un descanso puede curar heridas.").

    `to` brings the marks down to that many, overflow included; a negative `by`
    removes that many, overflow first; `kind` narrows it to one kind. A step
    that would add marks (a positive `by`, any `fractionOfMax`) is skipped
    silently. A wound track reports `Label filled/length` when it changed.
    """
    _, name = step.target
    track = values.track(name)
    if track is None:
        return
    if track.is_wound:
        shape = values.wound_track(name)
        if shape is None:
            return
        state = wound_reading(shape, work.entry)
        if step.to is not None:
            to: wounds.RestTarget = (
                step.to if isinstance(step.to, int) else "min" if step.to == "min" else "max"
            )
            outcome = wounds.rest(shape, state, to=to, kind_id=step.kind)
        else:
            assert step.by is not None
            by = _shift(step.by, 0, shape.length)
            if by >= 0:
                return
            outcome = wounds.rest(shape, state, by=by, kind_id=step.kind)
        if outcome.state != state:
            work.changes.append(wounds.count_text(shape, outcome.state))
            work.entry = _rebuilt(work.entry, **_wound_parts(name, work.entry, outcome.state))
        return
    low, high = values.track_bounds(name)
    current = track_reading(values, name, work.entry)
    value = _clamp(_target(step, current, low, high), low, high)
    if value != current:
        work.changes.append(f"{track.label} {value}")
    work.entry = _rebuilt(work.entry, **_track_parts(values, name, work.entry, value))


def _rest_state(step: RestoreStep, values: SheetValues, work: _RestWork) -> None:
    """A state step sets `"default"` or one of the state's values; a hidden state is skipped."""
    _, name = step.target
    state = values.live_state(name)
    if state is None or not isinstance(step.to, str):
        return
    value = state.start if step.to == "default" else step.to
    if value not in state.values:
        return
    if value != state_reading(state, work.entry):
        work.changes.append(f"{state.label} {state_label(state, value)}")
    work.entry = _rebuilt(work.entry, **_state_parts(state, work.entry, value))


def find_rest(rests: Sequence[Rest], written: str) -> Rest | None:
    """The rest a command names, by id or label ignoring case (SPEC §9)."""
    return named(rests, written)


def take_rest(
    values: SheetValues, pools: Sequence[PoolSpec], entry: LiveEntry, rest: str
) -> Outcome:
    """`op="rest" rest=…`: apply a rest's restore steps in order, then its `clear`.

    002, "Descansos"; SCHEMA-NOTES §7. Each step reads what the steps before
    it left. A rest does what its steps say and nothing else: temporary points
    stay. `clear` empties the live texts it names and the conditions it names
    (or all of them). `now` is `RestLabel: change, change`, or the label alone
    when nothing moved (ENGINE-NOTES §6).
    """
    found = find_rest(values.ruleset.rests, rest)
    if found is None:
        return Refused("unknown-rest")
    work = _RestWork(entry, [])
    for step in found.restore:
        key, _ = step.target
        if key == "track":
            _rest_track(step, values, work)
        elif key == "state":
            _rest_state(step, values, work)
        else:
            _rest_pools(step, pools, work)
    notes = {key: text for key, text in work.entry.text.items() if key not in found.clear.text}
    conditions: list[str] = []
    if found.clear.conditions != "all":
        cleared = set(found.clear.conditions)
        conditions = [item for item in work.entry.conditions if item not in cleared]
    finished = _rebuilt(work.entry, text=notes, conditions=conditions)
    now = f"{found.label}: {', '.join(work.changes)}" if work.changes else found.label
    return Changed(finished, now)
