"""symbol-pool: throw narrative dice and read their symbols (Genesys).

000, "symbol-pool: tirar dados narrativos y leer los símbolos". The roller's
pool comes from ability and rank kept apart ("Tipos de resolución"):
`larger-upgraded` throws the larger and upgrades as many dice as the smaller to
`pool.upgrade`, `sum` throws both and upgrades none, both within `pool.max`.
`dc=` (or a rung named by `difficulty=`) counts opposing dice, and
`upgrade="N"` swaps N of them for `difficulty.upgrade`, never adding any. The
sheet's signed bonuses, wounds, `adjust` and the tag's `bonus=` are combined
into one signed number before the caps: positive adds boost dice, negative
setback dice; `setback="N"` adds setback dice on top, the total held to
`setback.max`. With `allowOwnUpgrade`, `upgradeOwn="N"` upgrades N more of the
roller's dice, and once all are upgraded adds upgraded dice within `pool.max`.
Symbols are counted (a `counts` symbol adds one of another) before the
`cancels` pairs cancel one for one; `success.needed` of the success symbol
left succeeds. A critical symbol marks the roll wherever it shows, even if
what it added is cancelled; both marks may be set and neither changes whether
the roll succeeded. Outcome tiers read the net successes (`by: "total"`) or
net successes − needed + 1 (`by: "margin"`) ("Franjas de resultado").

Receipt (SPEC §3): `resolution="sum" modifier="0"`, `used` = `total` = net
successes, `rolls` the faces counting from 1, `symbols="2s 1a 1t"`,
`thrown="ability|ability|difficulty"`, `symbolDetails`, and `setback=` /
`upgradeOwn=` when those dice or upgrades were actually applied.

Decisions where the seeds are silent:
- `dc` on the receipt is the number of opposing dice thrown (before
  `upgrade=`), as `dc=` and a rung's `dc` count them. Without `dc=` or a
  named rung the easiest rung applies, and with no ladder none are thrown;
  `dc=` and `upgrade=` mean nothing on a ruleset without `difficulty` (or
  without `difficulty.upgrade`) and are ignored.
- The ability is the ability modifier and the rank the tier bonus (a list
  row check's rating; an ability check's rank is 0), each rounded down and
  never below 0. A stranger has neither. A skill's `cap` caps the roller's
  dice before `upgradeOwn`.
- The signed bonus is the sheet's free bonus, the untrained `by`, the
  `adjust` total, the wound penalty and `bonus=`, summed and rounded toward
  zero. A side the ruleset gives no die (no `boost` or `setback`) adds
  nothing. The receipt's `bonus` is the tag's own, clamped to what its side
  could add (−`setback.max`..`boost.max`).
- Dice are thrown and listed in this order: upgraded pool dice, plain pool
  dice, boost, upgraded opposing dice, plain opposing dice, setback.
- Net successes are the success symbols left after cancelling (never below
  0). A success that shows the critical-success symbol is
  `critical_success`, a failure that shows the critical-failure symbol
  `critical_failure`; a mark on the other side is kept in `symbolDetails`
  only. With tiers, that critical lands in a tier `on` it; when the tiers
  have none, the tiers read from the number decide as for every other kind
  (net successes by `total`, or `margin` = net − needed + 1) and the critical
  symbol stays marked in `symbolDetails` only (000: "Las franjas siguen
  decidiendo el éxito de la forma habitual; los símbolos críticos originales
  siguen marcados").
- `symbols` lists the net symbols as count and id in the order `symbols`
  declares them, space-separated; when nothing is left it is empty
  (`symbols=""`) and the card says "no symbols". `dice` writes the roll as
  the named-dice expression (`1 proficiency 1 ability vs 2 difficulty`) and
  `pool` the roller's dice.
- `symbolDetails` is `critSuccess: yes|no; critFailure: yes|no` followed by
  one group per run of the same die in throw order, `Label: f1, f2`, each
  face its symbol ids joined by `+` (`-` for a blank face):
  `critSuccess: yes; critFailure: no; Proficiency: t; Ability: s+a, a; Difficulty: f+f, -`.
  The marks come first, so a receipt cut at its value limit keeps them.
  Straight and curly double quotes in a label are written as `'`.

004 (contextual, `gmtags.checks.contextual`): what `apply=` adds joins the
signed bonus before its caps (positive: boost dice, negative: setback dice)
and is written as `effects=`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields

from gmtags.checks.context import CheckInput, named_rung, start_record
from gmtags.checks.contextual import handful
from gmtags.checks.dice import Tray
from gmtags.checks.kind import KindParts, dc_rung, ladder_line
from gmtags.checks.outcomes import Critical, decide
from gmtags.checks.receipts import NOT_NUMBERS, Attrs, numbers, summed
from gmtags.checks.record import CheckRecord
from gmtags.checks.request import clamp
from gmtags.limits import Limits
from gmtags.ruleset.resolution import SymbolDie, SymbolPool
from gmtags.sheet.numbers import CheckNumber
from gmtags.sheet.values import whole


@dataclass(frozen=True, slots=True)
class ThrownDie:
    """One symbol die as thrown: the die and its face, counting from 1."""

    die: SymbolDie
    face: int

    @property
    def marks(self) -> list[str]:
        """The symbol ids on the face shown (`[]` for a blank face)."""
        return self.die.faces[self.face - 1]


@dataclass(frozen=True, slots=True)
class SymbolReading:
    """The symbols of a roll: counted before cancelling, left after it, and the critical marks."""

    counted: dict[str, int]
    net: dict[str, int]
    critical_success: bool
    critical_failure: bool

    def left(self, symbol: str) -> int:
        """How many of `symbol` are left after cancelling."""
        return self.net.get(symbol, 0)


def throw_die(tray: Tray, die: SymbolDie) -> ThrownDie:
    """One die from the tray: a face from 1 to the number of faces (recorded in `rolls`)."""
    return ThrownDie(die, tray.throw(len(die.faces)))


def read_symbols(rules: SymbolPool, thrown: Sequence[ThrownDie]) -> SymbolReading:
    """000, "symbol-pool": count every symbol, then cancel the declared pairs one for one.

    A repeated id on a face counts twice; a symbol with `counts` adds one of
    the symbol it names before cancelling (a triumph adds a success and stays
    a triumph). A critical symbol marks the roll on any appearance, whatever
    the cancelling leaves.
    """
    counts_as = {symbol.id: symbol.counts for symbol in rules.symbols}
    counted: dict[str, int] = {symbol.id: 0 for symbol in rules.symbols}
    for die in thrown:
        for mark in die.marks:
            counted[mark] += 1
            also = counts_as[mark]
            if also is not None:
                counted[also] += 1
    net = dict(counted)
    for symbol in rules.symbols:
        if symbol.cancels is not None:
            pair = min(net[symbol.id], net[symbol.cancels])
            net[symbol.id] -= pair
            net[symbol.cancels] -= pair
    shown = {mark for die in thrown for mark in die.marks}
    return SymbolReading(
        counted,
        net,
        rules.critical_success is not None and rules.critical_success in shown,
        rules.critical_failure is not None and rules.critical_failure in shown,
    )


def net_symbols(rules: SymbolPool, reading: SymbolReading) -> str:
    """The receipt's `symbols`: `2s 1a 1t`, in declaration order; empty when nothing is left."""
    return " ".join(
        f"{reading.left(symbol.id)}{symbol.id}"
        for symbol in rules.symbols
        if reading.left(symbol.id)
    )


def net_labels(rules: SymbolPool, reading: SymbolReading) -> str:
    """The card's words for the net symbols: `2 Success, 1 Triumph`, or `no symbols`."""
    words = [
        f"{reading.left(symbol.id)} {symbol.label}"
        for symbol in rules.symbols
        if reading.left(symbol.id)
    ]
    return ", ".join(words) if words else "no symbols"


def _safe(label: str) -> str:
    """A label as a receipt value holds it: double quotes become `'` (labels hold no brackets)."""
    return label.replace('"', "'").replace("\u201c", "'").replace("\u201d", "'")


def symbol_details(thrown: Sequence[ThrownDie], reading: SymbolReading) -> str:
    """The receipt's `symbolDetails`: both critical marks, then each run of a die's faces.

    000: "El symbolDetails codificado conserva las etiquetas, los símbolos de
    las caras y ambas marcas de crítico". The format is in the module docstring.
    """
    parts = [
        f"critSuccess: {'yes' if reading.critical_success else 'no'}",
        f"critFailure: {'yes' if reading.critical_failure else 'no'}",
    ]
    run: list[str] = []
    current: SymbolDie | None = None
    for die in thrown:
        if current is not None and die.die is not current:
            parts.append(f"{_safe(current.label)}: {', '.join(run)}")
            run = []
        current = die.die
        run.append("+".join(die.marks) or "-")
    if current is not None:
        parts.append(f"{_safe(current.label)}: {', '.join(run)}")
    return "; ".join(parts)


def dice_expression(sides: Sequence[Sequence[tuple[int, str]]]) -> str:
    """`1 proficiency 2 ability vs 2 difficulty`: each side's non-empty counts, joined by `vs`."""
    written = [" ".join(f"{count} {die}" for count, die in side if count) for side in sides]
    return " vs ".join(side for side in written if side)


@dataclass
class SymbolRecord(CheckRecord):
    """A symbol-pool record: its card names the net symbols instead of adding faces (000)."""

    net_labels: str = "no symbols"

    def roll_words(self) -> str:
        """The dice on each side (`1 ability vs 2 difficulty`) and the net successes needed."""
        return f"{self.dice or 'no dice'} (need {self.dc})"

    def rolled_words(self) -> str:
        """The net symbols by their labels (`1 Success`): the faces are symbol numbers."""
        return self.net_labels

    def score_words(self) -> str | None:
        """A symbol card names its net symbols instead of a total."""
        return None


# ---------------------------------------------------------------------------
# Building the roll

_RECORD_FIELDS = tuple(part.name for part in fields(CheckRecord))
"""The fields a symbol record copies from the record `start_record` begins."""


@dataclass(frozen=True, slots=True)
class _Pool:
    """The roller's dice: how many in all, how many upgraded, and the own upgrades applied."""

    size: int
    upgraded: int
    own: int = 0


def _rank(number: CheckNumber) -> float:
    """000, "Tipos de resolución": the training kept apart from the ability (a row's rating)."""
    return number.tier_bonus + number.rating


def _pool(rules: SymbolPool, check: CheckInput) -> _Pool:
    """000, "symbol-pool" `pool`: build from ability and rank, add bought dice, then `upgradeOwn`.

    Dice bought with `spend=` are plain base dice within `pool.max`;
    `upgradeOwn` works after them ("después de las mejoras de la ficha y de
    los dados comprados").
    """
    number = check.number
    ability = max(whole(number.ability_modifier), 0)
    rank = max(whole(_rank(number)), 0)
    pool = rules.pool
    if pool.build == "sum":
        size, upgraded = ability + rank, 0
    else:
        size = max(ability, rank)
        upgraded = min(ability, rank) if pool.upgrade is not None else 0
    if number.cap is not None:
        size = min(size, max(number.cap, 0))
    # 000, "spend solo compra dados base adicionales del personaje dentro de pool.max".
    size = min(size + max(check.bought.dice, 0), pool.max)
    upgraded = min(upgraded, size)
    asked = check.request.upgrade_own
    if not rules.allow_own_upgrade or pool.upgrade is None or asked is None or asked <= 0:
        return _Pool(size, upgraded)
    # 000: upgrade the roller's plain dice first; once all are upgraded each
    # further upgrade adds an upgraded die, within pool.max.
    swapped = min(asked, size - upgraded)
    added = min(asked - swapped, pool.max - size)
    return _Pool(size + added, upgraded + swapped + added, swapped + added)


def _opposing(rules: SymbolPool, check: CheckInput, record: CheckRecord) -> tuple[int, int]:
    """000, "symbol-pool" `difficulty`: opposing dice from `dc=` or a rung, then `upgrade="N"`.

    Returns (plain, upgraded) opposing dice; sets the receipt's `dc` and `difficulty`.
    """
    opposing = rules.difficulty
    if opposing is None:
        return 0, 0
    ladder = rules.difficulty_ladder
    rung = named_rung(ladder, check.request.difficulty)
    if rung is not None:
        record.difficulty = rung.label
    if check.request.dc is not None:
        count = clamp(check.request.dc, 0, opposing.max)
    elif rung is not None:
        count = rung.dc
    else:
        count = min((r.dc for r in ladder), default=0) if ladder else 0
    record.dc = count
    asked = check.request.upgrade
    upgraded = 0
    if opposing.upgrade is not None and asked is not None and asked > 0:
        upgraded = min(asked, count)
    return count - upgraded, upgraded


def _extra(rules: SymbolPool, check: CheckInput, record: CheckRecord) -> tuple[int, int]:
    """000, "symbol-pool" `boost`/`setback`: one signed bonus, then `setback="N"`.

    Returns (boost, setback) dice; sets the receipt's `bonus` and `setback`.
    """
    number = check.number
    boost_max = rules.boost.max if rules.boost is not None else 0
    setback_max = rules.setback.max if rules.setback is not None else 0
    written = check.request.bonus or 0
    record.bonus = clamp(written, -setback_max, boost_max)
    sheet = number.free_bonus + number.untrained_by + number.adjust_total + number.penalty
    # 004, contextual: what `apply=` adds joins the signed bonus (boost or setback dice).
    record.effects = handful(check.effects)
    signed = math.trunc(sheet + written + record.effects)
    boost = min(max(signed, 0), boost_max)
    shared = min(max(-signed, 0), setback_max)
    separate = max(check.request.setback or 0, 0)
    setback = min(max(-signed, 0) + separate, setback_max)
    record.setback = setback - shared
    return boost, setback


def resolve_symbol_pool(rules: SymbolPool, check: CheckInput) -> CheckRecord:
    """Build the pool, throw it with the opposing dice and read the symbols (000, "symbol-pool")."""
    start = start_record(check)
    record = SymbolRecord(**{name: getattr(start, name) for name in _RECORD_FIELDS})
    record.resolution, record.modifier = "sum", 0
    pool = _pool(rules, check)
    plain_opposing, upgraded_opposing = _opposing(rules, check, record)
    boost, setback = _extra(rules, check, record)
    record.pool, record.upgrade_own = pool.size, pool.own
    opposing = rules.difficulty
    dice: dict[str | None, SymbolDie] = {die.id: die for die in rules.dice}
    sides: list[list[tuple[int, SymbolDie | None]]] = [
        [
            (pool.upgraded, dice.get(rules.pool.upgrade)),
            (pool.size - pool.upgraded, dice.get(rules.pool.die)),
            (boost, dice.get(rules.boost.die if rules.boost else None)),
        ],
        [
            (upgraded_opposing, dice.get(opposing.upgrade if opposing else None)),
            (plain_opposing, dice.get(opposing.die if opposing else None)),
            (setback, dice.get(rules.setback.die if rules.setback else None)),
        ],
    ]
    thrown = [
        throw_die(check.tray, die)
        for side in sides
        for count, die in side
        if die is not None
        for _ in range(count)
    ]
    reading = read_symbols(rules, thrown)
    record.rolls = [die.face for die in thrown]
    record.thrown = [die.die.id for die in thrown]
    record.dice = dice_expression(
        [[(count, die.id) for count, die in side if die is not None] for side in sides]
    )
    record.symbols = net_symbols(rules, reading)
    record.symbol_details = symbol_details(thrown, reading)
    record.net_labels = net_labels(rules, reading)
    successes = reading.left(rules.success.symbol)
    record.used = record.total = successes
    needed = rules.success.needed
    success = successes >= needed
    critical: Critical = None
    if success and reading.critical_success:
        critical = "success"
    elif not success and reading.critical_failure:
        critical = "failure"
    outcomes = rules.outcomes
    if outcomes is not None and critical is not None:
        # 000, symbol-pool: "Las franjas siguen decidiendo el éxito de la forma habitual; los
        # símbolos críticos originales siguen marcados": a critical symbol moves the check
        # only into a tier `on` that critical; otherwise the number decides, and the symbol
        # stays marked in `symbolDetails`.
        on = "critical-success" if critical == "success" else "critical-failure"
        if not any(tier.on == on for tier in outcomes.tiers):
            critical = None
    measure = successes if outcomes and outcomes.by == "total" else successes - needed + 1
    verdict = decide(outcomes, success=success, critical=critical, measure=measure)
    record.result, record.outcome = verdict.result, verdict.outcome
    return record


# ---------------------------------------------------------------- the kind


def tray_limit(rules: SymbolPool, limits: Limits) -> int:
    """A guard above the validated maxima of a symbol pool."""
    return 2 * limits.dice_per_roll


def reminder(rules: SymbolPool) -> list[str]:
    """What the GM is taught about a symbol-pool check."""
    lines = [
        "Checks build a pool of narrative dice; dc is the number of difficulty dice.",
        'bonus="N" adds boost dice (negative: setback dice); upgrade="N" upgrades difficulty dice.',
    ]
    if rules.allow_own_upgrade:
        lines.append('upgradeOwn="N" upgrades the roller\'s own dice.')
    return lines + ladder_line(rules.difficulty_ladder, dc_rung)


def audit(attrs: Attrs, faces: list[int], rules: SymbolPool) -> list[str]:
    """`total == used + modifier` (the net successes, modifier 0)."""
    read = numbers(attrs)
    if read is None:
        return [NOT_NUMBERS]
    return summed(*read)


KIND = KindParts(SymbolPool, resolve_symbol_pool, tray_limit, reminder, audit, "sum")
"""000, "symbol-pool"."""
