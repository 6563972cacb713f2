"""Wound tracks: typed marks on named levels or numbered boxes, as pure arithmetic.

002, "Contadores de heridas: salud en una escala de marcas" and the sections after
it. A wound track's definition holds *kinds* (what a mark CAN be); the sheet in
play holds *marks* (those kinds sitting on the track). The two words never swap.

Everything here is a pure function over small frozen values, independent of the
ruleset and snapshot models: an adapter builds a `WoundTrack` from the ruleset
(with the levels a list adds already merged in by `extend_levels`) and a
`WoundState` from `rulesetLive.<name>.marks.<trackId>` and
`rulesetLive.<name>.overflow.<trackId>` (SPEC §4), and stores the state it gets
back. No input is ever changed and a refusal hands back the very state it was given.

Every function reads the stored state through one tolerant reader first
(`normalize`), so a hand-edited or stale snapshot reads as the rules say:

- marks on a sequential track are sorted most severe first (002, "Las reglas
  exactas…": "Las marcas se ordenan con las más graves primero");
- a mark of a kind the track no longer declares is dropped, as the reference
  engine's live state does: it cannot sit anywhere on the ladder;
- marks that no longer fit (a scar row deleted, a box count that went down) are
  kept as overflow (002, "Niveles que añade una lista": "editar la ficha no
  deshace el daño"); on an indexed track only the marks past the last box move;
- an indexed track stores its marks box by box with `""` for an empty box
  (SPEC §9); trailing empty boxes are left off, so a cleared track stores `()`;
- overflow is never negative and is held at `MAX_OVERFLOW`, like the reference.

Work is bounded by the track, never by a number a tag wrote: marking does at most
one step per level per kind before the rest is counted as overflow at once, and
healing removes overflow arithmetically and then at most one mark per level.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

FillMode = Literal["sequential", "indexed"]
"""002, "Llenar por casilla…": where a new mark lands (`fill`, default sequential)."""

OnFull = Literal["upgrade", "refuse"]
"""002, "Llenar por casilla…": what a mark with no room does (`onFull`, default upgrade)."""

PenaltyBy = Literal["filled", "remaining"]
"""002, "Casillas numeradas…": which count the box step table is read at."""

WoundRefusal = Literal["unknown-kind", "no-box", "bad-amount"]
"""Why a wound command was refused (ENGINE-NOTES §6 reasons)."""

RestTarget = int | Literal["min", "max"]
"""A rest step's `to` on a wound track: a number of marks, or the track's min (0) or max."""

MAX_TRACK_LENGTH = 64
"""SCHEMA-NOTES §6: a track is at most 64 levels in all; numbered boxes stop at 64 (002)."""

MAX_EXTRA_PER_ROW = 16
"""002, "Niveles que añade una lista": one list row adds at most 16 levels."""

MIN_LEVEL_PENALTY = -1000
"""SCHEMA-NOTES §6: a level's penalty is an integer from -1000 to 0."""

MAX_OVERFLOW = 1_000_000
"""The most overflow stored, as the reference engine holds every live number."""


@dataclass(frozen=True, slots=True)
class WoundKind:
    """One kind a mark can be (002: `kinds[]` = `{id, label, severity}`).

    Only the order of severities matters, never the numbers.
    """

    id: str
    label: str
    severity: int


@dataclass(frozen=True, slots=True)
class WoundLevel:
    """One named level, best first (002: `levels[]` = `{label, penalty}`, penalty ≤ 0)."""

    label: str
    penalty: int


@dataclass(frozen=True, slots=True)
class BoxPenalty:
    """002, "Casillas numeradas…": `boxes.penalty`, a step table read at filled or remaining.

    `table` holds `(threshold, penalty)` pairs; the penalty used is the one at the
    highest threshold not above the count, and a count below every threshold gets
    the first pair's (SCHEMA-NOTES §4, step tables).
    """

    by: PenaltyBy
    table: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class WoundTrack:
    """A wound track's definition, as the ruleset declares it for one character.

    Exactly one of `levels` (named levels, best first) and `boxes` (the number of
    numbered boxes, the track's own worked-out `max`) is set. The levels a list
    adds (002, "Niveles que añade una lista") are already merged into `levels`:
    build them with `extend_levels`, which puts each row's levels after the last
    level whose penalty is at least as good, not at the end. An adapter clamps a
    worked-out box count to 0..`MAX_TRACK_LENGTH` before building the track.

    An indexed track always refuses a mark it has no box for (002: "Un contador
    indexado siempre rechaza"), whatever `on_full` says.
    """

    id: str
    label: str
    kinds: tuple[WoundKind, ...]
    levels: tuple[WoundLevel, ...] | None = None
    boxes: int | None = None
    box_penalty: BoxPenalty | None = None
    fill: FillMode = "sequential"
    on_full: OnFull = "upgrade"

    def __post_init__(self) -> None:
        """Refuse a definition no ruleset can declare: a programmer error, raised at once."""
        if (self.levels is None) == (self.boxes is None):
            raise ValueError(f"wound track {self.id!r} needs exactly one of levels and boxes")
        if self.levels is not None and not 1 <= len(self.levels) <= MAX_TRACK_LENGTH:
            raise ValueError(f"wound track {self.id!r} needs 1 to {MAX_TRACK_LENGTH} levels")
        if self.boxes is not None and not 0 <= self.boxes <= MAX_TRACK_LENGTH:
            raise ValueError(f"wound track {self.id!r} needs 0 to {MAX_TRACK_LENGTH} boxes")
        if self.box_penalty is not None and self.boxes is None:
            raise ValueError(f"wound track {self.id!r} has a box penalty but no boxes")
        if not self.kinds:
            raise ValueError(f"wound track {self.id!r} needs at least one kind")
        if len({kind.id for kind in self.kinds}) != len(self.kinds):
            raise ValueError(f"wound track {self.id!r} repeats a kind id")
        if len({kind.severity for kind in self.kinds}) != len(self.kinds):
            raise ValueError(f"wound track {self.id!r} repeats a kind severity")
        if self.fill not in ("sequential", "indexed"):
            raise ValueError(f"wound track {self.id!r} has an unknown fill {self.fill!r}")
        if self.on_full not in ("upgrade", "refuse"):
            raise ValueError(f"wound track {self.id!r} has an unknown onFull {self.on_full!r}")

    @property
    def length(self) -> int:
        """How many marks the track holds: its levels, or its boxes (002: "Siete niveles…")."""
        return len(self.levels) if self.levels is not None else self.boxes or 0

    @property
    def ladder(self) -> tuple[WoundKind, ...]:
        """The kinds, least severe first: the ladder a full track's lightest mark climbs."""
        return tuple(sorted(self.kinds, key=lambda kind: kind.severity))

    @property
    def refuses(self) -> bool:
        """Whether a mark with no room refuses the command rather than upgrading (002)."""
        return self.fill == "indexed" or self.on_full == "refuse"


@dataclass(frozen=True, slots=True)
class WoundState:
    """One character's marks on one track, as stored (SPEC §4 and §9).

    `marks` holds kind ids: most severe first on a sequential track, box by box
    (`""` for an empty box) on an indexed one. `overflow` counts the marks that
    could not land because the track was full at its worst kind.
    """

    marks: tuple[str, ...] = ()
    overflow: int = 0


@dataclass(frozen=True, slots=True)
class WoundOutcome:
    """What one wound command did: the new state, or a refusal with the old one.

    `overflow_grew` is how many marks spilled past the track in this command (the
    `+N over` of the receipt). On a refusal `state` is the state given, untouched.
    """

    state: WoundState
    overflow_grew: int = 0
    reason: WoundRefusal | None = None

    @property
    def refused(self) -> bool:
        """True when the command changed nothing and `reason` says why."""
        return self.reason is not None


@dataclass(slots=True)
class _Work:
    """A working copy: marks as ladder ranks (0 = lightest kind), None for an empty box.

    Sequential tracks hold a dense list sorted most severe first; indexed tracks
    hold one slot per box.
    """

    slots: list[int | None]
    overflow: int


def find_kind(track: WoundTrack, written: str) -> WoundKind | None:
    """The kind a command names: by id, then by label, ignoring case and outer spaces.

    002, "Marcar durante el juego.": the GM writes `kind="knock"`. The reference
    engine also accepts a kind's label in any case; an id wins over a label.
    """
    wanted = written.strip().casefold()
    if not wanted:
        return None
    for kind in track.kinds:
        if kind.id.casefold() == wanted:
            return kind
    for kind in track.kinds:
        if kind.label.casefold() == wanted:
            return kind
    return None


def extend_levels(
    levels: Sequence[WoundLevel], rows: Iterable[tuple[int, int]]
) -> tuple[WoundLevel, ...]:
    """The track's levels with those a list adds, for one character.

    002, "Niveles que añade una lista": each row, in order, adds its count of
    levels (0 to 16) with its penalty, after the last level whose penalty is at
    least as good (first of all when none is), named after that level when the
    penalties match and by the penalty otherwise. `rows` are `(count, penalty)`
    as read from the list's `countColumn` and `penaltyColumn`; a hidden list
    passes no rows. Penalties are held to -1000..0 and the track stops at 64
    levels, as the reference engine does.
    """
    result = list(levels)[:MAX_TRACK_LENGTH]
    for count, row_penalty in rows:
        if len(result) >= MAX_TRACK_LENGTH:
            break
        added = min(max(count, 0), MAX_EXTRA_PER_ROW)
        level_penalty = min(max(row_penalty, MIN_LEVEL_PENALTY), 0)
        after = -1
        for index, level in enumerate(result):
            if level.penalty >= level_penalty:
                after = index
        beside = result[after] if after >= 0 else None
        label = (
            beside.label
            if beside is not None and beside.penalty == level_penalty
            else str(level_penalty)
        )
        result[after + 1 : after + 1] = [WoundLevel(label, level_penalty)] * added
    return tuple(result[:MAX_TRACK_LENGTH])


def _read(track: WoundTrack, state: WoundState) -> _Work:
    """The stored state as the rules read it (see the module docstring)."""
    ranks = {kind.id: rank for rank, kind in enumerate(track.ladder)}
    length = track.length
    overflow = min(max(state.overflow, 0), MAX_OVERFLOW)
    read = [ranks.get(stored) for stored in state.marks]
    slots: list[int | None]
    if track.fill == "indexed":
        slots = [read[box] if box < len(read) else None for box in range(length)]
        overflow += sum(1 for rank in read[length:] if rank is not None)
    else:
        dense = sorted((rank for rank in read if rank is not None), reverse=True)
        slots = list(dense[:length])
        overflow += len(dense) - len(slots)
    return _Work(slots, min(overflow, MAX_OVERFLOW))


def _state(track: WoundTrack, work: _Work) -> WoundState:
    """The stored shape again: kind ids, `""` for an empty box, trailing empties left off."""
    ladder = track.ladder
    marks = [ladder[rank].id if rank is not None else "" for rank in work.slots]
    while marks and marks[-1] == "":
        marks.pop()
    return WoundState(tuple(marks), min(work.overflow, MAX_OVERFLOW))


def normalize(track: WoundTrack, state: WoundState) -> WoundState:
    """The stored state as every rule reads it: sorted, known kinds only, excess as overflow."""
    return _state(track, _read(track, state))


def _filled(work: _Work) -> int:
    return sum(1 for rank in work.slots if rank is not None)


def _lowest(work: _Work) -> int | None:
    """The index of the lowest (furthest down) marked level, or None when nothing is marked."""
    for index in range(len(work.slots) - 1, -1, -1):
        if work.slots[index] is not None:
            return index
    return None


def filled(track: WoundTrack, state: WoundState) -> int:
    """Marks on the track, overflow not counted (ENGINE-NOTES §7: the track's value)."""
    return _filled(_read(track, state))


def remaining(track: WoundTrack, state: WoundState) -> int:
    """Levels or boxes still clear (002: the count `liveTrack` and `by: "remaining"` read)."""
    return track.length - filled(track, state)


def _insert(slots: list[int | None], rank: int) -> None:
    """002, "Las reglas exactas…": a mark goes in by severity, never at the end.

    It takes the highest level its severity earns and pushes lighter marks down.
    """
    at = next(
        (index for index, slot in enumerate(slots) if slot is not None and slot < rank),
        len(slots),
    )
    slots.insert(at, rank)


def _mark_upgrading(work: _Work, rank: int, amount: int, length: int, top: int) -> int:
    """Place `amount` marks one at a time on a sequential track that upgrades; return the spill.

    002, "Las reglas exactas…": marks apply one by one, so filling partway is the
    same rule as starting full; a full track raises its lightest mark one step up
    the kind ladder whatever the incoming kind; once every mark is the worst kind,
    each mark left counts as overflow. Each pass either adds a mark or raises one a
    step, so the loop runs at most `length × kinds` times and the rest is counted
    at once.
    """
    left = amount
    slots = work.slots
    while left > 0:
        if len(slots) < length:
            _insert(slots, rank)
        elif not slots or slots[-1] == top:
            return left
        else:
            lightest = slots.pop()
            assert lightest is not None  # a sequential track has no empty slots
            _insert(slots, lightest + 1)
        left -= 1
    return 0


def _refused(state: WoundState, reason: WoundRefusal) -> WoundOutcome:
    return WoundOutcome(state, 0, reason)


def mark(
    track: WoundTrack,
    state: WoundState,
    kind_id: str,
    amount: int,
    box: int | None = None,
) -> WoundOutcome:
    """Apply `[sheet: op="damage" track=… kind=… amount=N box=…]` with N ≥ 1.

    002, "Marcar durante el juego." and "Las reglas exactas…". `kind_id` is the
    kind as written (id or label, see `find_kind`). The caller sends a negative
    amount to `heal`; here an amount below 1 is refused `bad-amount`, and so is a
    `box` below 1. Refusals, in this order: `bad-amount` (amount), `unknown-kind`,
    `bad-amount` (box), `no-box`.

    - Sequential, `onFull: "upgrade"`: one mark at a time, by severity; a full
      track raises its lightest mark; past the worst kind the rest is overflow.
    - Sequential, `onFull: "refuse"` (002, "Llenar por casilla…"): the whole
      command is refused `no-box` unless every mark fits; none is placed otherwise.
    - Indexed: each mark lands in the box `box` names (the first when none), or
      the next free one above it, and never moves a placed mark. Free boxes are
      found for every mark before any is placed; a command that cannot land whole
      is refused `no-box`. `box` is ignored on a sequential track.
    """
    if amount < 1:
        return _refused(state, "bad-amount")
    kind = find_kind(track, kind_id)
    if kind is None:
        return _refused(state, "unknown-kind")
    if box is not None and box < 1:
        return _refused(state, "bad-amount")
    work = _read(track, state)
    rank = track.ladder.index(kind)
    length = track.length

    if track.fill == "indexed":
        start = (box or 1) - 1
        free = [at for at in range(start, length) if work.slots[at] is None]
        if len(free) < amount:
            return _refused(state, "no-box")
        for at in free[:amount]:
            work.slots[at] = rank
        return WoundOutcome(_state(track, work))

    if track.refuses:
        if length - len(work.slots) < amount:
            return _refused(state, "no-box")
        for _ in range(amount):
            _insert(work.slots, rank)
        return WoundOutcome(_state(track, work))

    spilled = _mark_upgrading(work, rank, amount, length, len(track.kinds) - 1)
    work.overflow = min(work.overflow + spilled, MAX_OVERFLOW)
    return WoundOutcome(_state(track, work), spilled)


def _heal(track: WoundTrack, work: _Work, amount: int, kind: WoundKind | None) -> None:
    """Remove `amount` marks: overflow first, then the lightest, of `kind` alone when given.

    002, "Las reglas exactas…": healing clears overflow before any mark, and a heal
    naming one of the track's kinds clears only marks of that kind. Overflow has no
    kind, so it comes off first even then (as the reference engine does). Among
    equally light marks the one furthest down goes first: the last on a
    sequential track, the highest box on an indexed one (002, "Llenar por
    casilla…": "Una curación elimina la más alta de las marcas más leves").
    """
    taken = min(work.overflow, amount)
    work.overflow -= taken
    left = amount - taken
    only = None if kind is None else track.ladder.index(kind)
    slots = work.slots
    while left > 0:
        at: int | None = None
        for index, rank in enumerate(slots):
            if rank is None or (only is not None and rank != only):
                continue
            best = None if at is None else slots[at]
            if best is None or rank <= best:
                at = index
        if at is None:
            return
        if track.fill == "indexed":
            slots[at] = None
        else:
            del slots[at]
        left -= 1


def heal(
    track: WoundTrack,
    state: WoundState,
    amount: int,
    kind_id: str | None = None,
) -> WoundOutcome:
    """Apply a heal of `amount` ≥ 1 marks (the damage command with a negative amount).

    002, "Las reglas exactas…": overflow first, then the lightest marks; a heal
    naming one of the track's kinds (id or label) clears only that kind, and one
    naming no kind of the track clears the lightest first (never refused for it).
    An amount below 1 is refused `bad-amount`: the caller turns `amount="-2"` into
    `heal(…, 2)`. Healing an empty track is not refused; nothing changes.
    """
    if amount < 1:
        return _refused(state, "bad-amount")
    work = _read(track, state)
    kind = None if kind_id is None else find_kind(track, kind_id)
    _heal(track, work, amount, kind)
    return WoundOutcome(_state(track, work))


def rest(
    track: WoundTrack,
    state: WoundState,
    *,
    to: RestTarget | None = None,
    by: int | None = None,
    kind_id: str | None = None,
) -> WoundOutcome:
    """Apply one rest step to a wound track; a rest only ever removes marks.

    002, "Un descanso puede curar heridas.": `to` brings the track down to that
    many marks, overflow included (`"min"` is 0, `"max"` the track's length, so
    on a full track it clears only the overflow); a NEGATIVE `by` removes that
    many, overflow first. A step that names a kind removes only marks of that
    kind (overflow still first). A step that would add marks (a `to` above what
    is there, a positive or zero `by`) is skipped silently: the state comes back
    as read. Exactly one of `to` and `by` is given; anything else raises.
    """
    if (to is None) == (by is None):
        raise ValueError("a rest step has exactly one of to and by")
    work = _read(track, state)
    if to is not None:
        target = 0 if to == "min" else track.length if to == "max" else max(to, 0)
        count = _filled(work) + work.overflow - target
    else:
        assert by is not None
        count = -by
    if count > 0:
        kind = None if kind_id is None else find_kind(track, kind_id)
        _heal(track, work, count, kind)
    return WoundOutcome(_state(track, work))


def _step_table(table: Sequence[tuple[int, int]], count: int) -> int:
    """A step table read at `count`: the highest threshold not above it, else the lowest pair."""
    if not table:
        return 0
    reached = [pair for pair in table if pair[0] <= count]
    if reached:
        return max(reached, key=lambda pair: pair[0])[1]
    return min(table, key=lambda pair: pair[0])[1]


def penalty(track: WoundTrack, state: WoundState) -> int:
    """The penalty in force on this track (002, "La penalización de las tiradas").

    With named levels: the penalty of the lowest marked level, never a sum, 0
    when nothing is marked (002, "Las reglas exactas…": three marks in the Harm
    example give -3, not 0 + -1 + -3). With numbered boxes: the step table read
    at the number of boxes filled or remaining, whichever boxes are marked, so a
    table may cost something with no mark at all (002, "Casillas numeradas…").
    A track with boxes but no table costs nothing.
    """
    work = _read(track, state)
    if track.levels is None:
        if track.box_penalty is None:
            return 0
        count = _filled(work)
        if track.box_penalty.by == "remaining":
            count = track.length - count
        return _step_table(track.box_penalty.table, count)
    lowest = _lowest(work)
    return 0 if lowest is None else track.levels[lowest].penalty


def count_text(track: WoundTrack, state: WoundState) -> str:
    """`Label filled/length`, as a rest reports a wound track (ENGINE-NOTES §7)."""
    return f"{track.label} {filled(track, state)}/{track.length}"


def now_text(track: WoundTrack, state: WoundState, overflow_grew: int = 0) -> str:
    """The receipt's `now` for a wound command (SPEC §3): `Harm 3/4 Bleeding +2 over`.

    `Label filled/length`, then the label of the lowest marked level (named levels
    only; numbered boxes show only the count, 002 "Casillas numeradas…"), then
    ` +N over` when the command's overflow grew by N.
    """
    work = _read(track, state)
    text = f"{track.label} {_filled(work)}/{track.length}"
    lowest = _lowest(work)
    if track.levels is not None and lowest is not None:
        text += f" {track.levels[lowest].label}"
    if overflow_grew > 0:
        text += f" +{overflow_grew} over"
    return text
