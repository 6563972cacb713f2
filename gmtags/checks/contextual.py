"""Contextual rows and entries: what `apply="A; B"` adds to a check.

004, "Una lista puede declarar contextual": a list with `contextual` makes
each row something the Game Master can name in a check. The row's `skill`
cell names the skill (by id or label) it applies to, an empty cell any check;
`to: "saves"` applies the rows to saves instead. Its `bonus` (number) and
`dice` (dice) cells add to the check, as dice on a kind that throws a
handful; `check` gives each applied row the same pool effect.

004, "Una entrada de catálogo puede llevar mechanics.contextual": an entry
the character picked applies the same way, by its label or id: `modifiers`
adds to checks or saves, `skills`/`saves` restrict it, `check` is a pool
effect, and its `cost` is paid once on the check it applies to.

"apply=… (hasta cuatro nombres) … Solo cambian la prueba los nombres que se
aplican a ella: una fila de otra habilidad, un nombre que comparten dos filas
y un coste que la reserva no puede cubrir no cambian nada. Tener una fila
nunca cambia una tirada por sí solo. El registro enumera lo que se aplicó en
from." Names are compared as check names are (case, accents, and every run
of other characters than letters and digits alike), so curly and straight
apostrophes and quotes read the same (1.218).

004, "Especialidades de atributo" (1.213): with `abilities: true` the skill
cell may name an ability (id, label or short form), and the row applies to
any check rolled with it: the ability's own check, a skill on it, or one
`with=` switched to it.

004, "Cancelación desactivada" (1.214): `cancel: false` stops faces at or
under `resolution.cancel.upTo` taking successes away; a botch still reads
them (`gmtags.checks.dice_pool`).

004, "El mejor valor" (1.217): `best: true` makes a skill check roll the
character's best skill rating when it is higher than the one asked for.

004, "Costes que marcan un contador" (1.218): a cost term is `{pool, amount}`
(a pool or a pool group, paid through `gmtags.sheet.live`) or `{track, by}`,
which marks a simple live track `by` times as far as its bounds allow.

Decisions where the seeds are silent:
- candidates are the rows of every contextual list and the picked entries
  with a `mechanics.contextual`; a name answering to more than one of
  them applies nothing; a name written twice applies once; only the first
  four names are read;
- names are applied in the order written, each paying its whole cost from
  the live state the ones before it (and the check's `spend=`/`use=`) left;
  a name whose cost cannot be paid applies nothing and pays nothing; a track
  term is never refused (it marks what the bounds allow) unless the track is
  not on the sheet now;
- a pool-group term pays from the first pool of the group, in sheet order,
  that can cover it (as `[sheet: op="use"]` does);
- an entry applies to saves when it lists `saves` or has `modifiers.saves`,
  and to every other check unless it is for saves only (it lists `saves` or
  modifies saves, and neither lists `skills` nor has `modifiers.checks`), as a
  list applies to checks unless `to: "saves"`; a `skills` or `saves` list
  restricts its side to the ids listed; the modifier is `modifiers.saves` on
  a save and `modifiers.checks` on any other check;
- a dice cell reads `NdS` with an optional `+M`/`-M` (N 1–20, S 2–1000);
  anything else adds nothing. dice-sum and roll-against throw the dice after
  the check's own and add their total (plus M) to the number (roll-against:
  to the target); the kinds that throw a handful add N dice. All the dice
  cells of one check add at most 20 dice (SPEC §8): a cell that would pass
  that adds none of its dice (its row still applies);
- on the kinds that throw a handful (dice-pool, dice-highest, symbol-pool)
  a bonus cell or modifier is that many dice (symbol-pool: boost or setback
  dice through its signed bonus); `effects=` is the signed number or dice
  they added (pool `check.dice` included), `auto=` includes `check.successes`;
- several `explode` or `double` faces: the lowest applies, and it wins over
  the ruleset's and the tag's face when lower;
- `best` compares the capped numbers of every skill rolled with the same
  ability (`with=`'s when written); the asked check keeps its `adjust`,
  wound penalty and stance; the untrained refusal is read from the asked
  skill before anything is applied.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gmtags.checks.context import NO_EFFECTS, Effects
from gmtags.checks.dice import Tray
from gmtags.limits import DEFAULT_LIMITS, Limits
from gmtags.ruleset.sheet import (
    ContextualCheck,
    ContextualCost,
    EntryContextual,
    ListContextual,
)
from gmtags.sheet.live import PoolSpec, Refused, move_track, pool_reading, spend
from gmtags.sheet.numbers import CheckNumber, check_name, match_ability
from gmtags.sheet.use import ROW_MARK
from gmtags.sheet.values import CheckParts, SheetValues, whole
from gmtags.state.snapshot import LiveEntry

_DICE_CELL = re.compile(r"^(\d{1,2})?d(\d{1,4})(?:([+-])(\d{1,3}))?$")
_FROM_UNSAFE = re.compile(r"[\[\];]")


@dataclass(frozen=True, slots=True)
class RowSource:
    """A row of a contextual list, as `apply=` can name it (004, "Una lista puede declarar…")."""

    name: str
    rule: ListContextual
    cell: str
    bonus: int
    dice: str | None
    mark: str | None = None
    """The `catalog/entry` of the pick that wrote the row (`_catalog`), if one did."""

    @property
    def answers(self) -> frozenset[str]:
        """The row answers to the name in its name column."""
        return frozenset({check_name(self.name)})

    def applies(self, values: SheetValues, number: CheckNumber) -> bool:
        """A row of its skill (or any, empty), of saves with `to: "saves"`, or of its ability."""
        if (number.kind == "save") != (self.rule.to == "saves"):
            return False
        cell = check_name(self.cell)
        if not cell:
            return True
        target = number.target
        if target.kind in ("skill", "save") and target.id is not None:
            entry = values.entry(target.kind, target.id)
            if entry is not None and cell in {check_name(entry.id), check_name(entry.label)}:
                return True
        if self.rule.abilities:
            ability = match_ability(values.ruleset, self.cell)
            return ability is not None and ability.id in number.abilities
        return False

    def modifier(self, number: CheckNumber) -> int:
        """The bonus cell."""
        return self.bonus

    @property
    def check(self) -> ContextualCheck | None:
        """The list's pool effect."""
        return self.rule.check

    @property
    def cost(self) -> Sequence[ContextualCost]:
        """The list's cost, paid once per applied row."""
        return self.rule.cost or ()


@dataclass(frozen=True, slots=True)
class EntrySource:
    """A picked catalog entry with `mechanics.contextual` (004, "Una entrada de catálogo…")."""

    name: str
    id: str
    ref: str
    rule: EntryContextual

    @property
    def answers(self) -> frozenset[str]:
        """The entry answers to its label and its id."""
        return frozenset({check_name(self.name), check_name(self.id)})

    def applies(self, values: SheetValues, number: CheckNumber) -> bool:
        """Saves when it names or modifies saves; other checks unless it is for saves only.

        A `skills` or `saves` list restricts its side to the ids listed.
        """
        rule = self.rule
        modifiers = rule.modifiers
        for_saves = rule.saves is not None or (
            modifiers is not None and modifiers.saves is not None
        )
        for_checks = (
            rule.skills is not None
            or (modifiers is not None and modifiers.checks is not None)
            or not for_saves
        )
        if number.kind == "save":
            return for_saves and (rule.saves is None or number.id in rule.saves)
        if not for_checks:
            return False
        return rule.skills is None or (number.kind == "skill" and number.id in rule.skills)

    def modifier(self, number: CheckNumber) -> int:
        """`modifiers.saves` on a save, `modifiers.checks` on any other check."""
        modifiers = self.rule.modifiers
        if modifiers is None:
            return 0
        found = modifiers.saves if number.kind == "save" else modifiers.checks
        return found or 0

    @property
    def dice(self) -> str | None:
        """An entry has no dice cell."""
        return None

    @property
    def check(self) -> ContextualCheck | None:
        """The entry's pool effect."""
        return self.rule.check

    @property
    def cost(self) -> Sequence[ContextualCost]:
        """The entry's cost, paid once."""
        return self.rule.cost or ()


Source = RowSource | EntrySource


@dataclass(frozen=True, slots=True)
class Contextual:
    """What `apply=` gave a check: its effects, the number it rolls, the live entry after paying.

    `entry` is None when nothing was paid.
    """

    effects: Effects = NO_EFFECTS
    number: CheckNumber | None = None
    entry: LiveEntry | None = None


def read_names(written: str | None, limits: Limits = DEFAULT_LIMITS) -> list[str]:
    """`apply="A; B"`: the names written, split on `;`, blanks and repeats dropped, at most
    `limits.apply_names` (004: four)."""
    if written is None:
        return []
    seen: dict[str, str] = {}
    for part in written.split(";"):
        key = check_name(part)
        if key and key not in seen:
            seen[key] = part.strip()
    return list(seen.values())[: limits.apply_names]


def read_dice(cell: str | None, limits: Limits = DEFAULT_LIMITS) -> tuple[int, int, int] | None:
    """A dice cell `NdS±M` as (N, S, M); None when empty or not that shape (module docstring)."""
    if cell is None:
        return None
    found = _DICE_CELL.match(cell.replace(" ", "").lower())
    if found is None:
        return None
    count = int(found.group(1) or "1")
    sides = int(found.group(2))
    plus = int(found.group(4) or "0") * (-1 if found.group(3) == "-" else 1)
    if not 1 <= count <= limits.effect_dice or not 2 <= sides <= 1000:
        return None
    return count, sides, plus


def _row_sources(values: SheetValues) -> list[Source]:
    """Every named row of the contextual lists on the character's sheet."""
    found: list[Source] = []
    card = values.card
    for sheet_list in values.sheet.lists:
        rule = sheet_list.contextual
        if rule is None or card is None:
            continue
        stored = card.lists.get(sheet_list.id, [])[: sheet_list.max_items]
        marks = [r.get(ROW_MARK) for r in stored if isinstance(r, dict)]
        for row, mark in zip(values.rows(sheet_list.id), marks, strict=False):
            name = row.get(rule.name)
            if not isinstance(name, str) or not check_name(name):
                continue
            cell = row.get(rule.skill) if rule.skill is not None else None
            bonus = row.get(rule.bonus) if rule.bonus is not None else None
            dice = row.get(rule.dice) if rule.dice is not None else None
            found.append(
                RowSource(
                    name=name.strip(),
                    rule=rule,
                    cell=cell if isinstance(cell, str) else "",
                    bonus=whole(bonus) if isinstance(bonus, int | float) else 0,
                    dice=dice if isinstance(dice, str) else None,
                    mark=mark if isinstance(mark, str) else None,
                )
            )
    return found


def _picked(values: SheetValues) -> list[str]:
    """The `catalog/entry` refs the character picked: `picks`, then rows a pick wrote."""
    card = values.card
    if card is None:
        return []
    refs = list(card.picks)
    for rows in card.lists.values():
        for row in rows:
            mark = row.get(ROW_MARK) if isinstance(row, Mapping) else None
            if isinstance(mark, str):
                refs.append(mark)
    return list(dict.fromkeys(refs))


def _entry_sources(values: SheetValues) -> list[Source]:
    """The picked entries with `mechanics.contextual` (typed and validated at import)."""
    picked = set(_picked(values))
    found: list[Source] = []
    for catalog in values.ruleset.catalog_models:
        for entry in catalog.entries or ():
            ref = f"{catalog.id}/{entry.id}"
            rule = entry.mechanics.contextual if entry.mechanics is not None else None
            if ref in picked and rule is not None:
                found.append(EntrySource(entry.label.strip(), entry.id, ref, rule))
    return found


def _pay_pool(
    pools: Sequence[PoolSpec], entry: LiveEntry, term: ContextualCost
) -> LiveEntry | None:
    """A `{pool, amount}` term: the pool itself, or the first of its group that can pay."""
    assert term.pool is not None and term.amount is not None
    declared = [pool for pool in pools if pool.list_id is None]
    direct = next((pool for pool in declared if pool.key == term.pool), None)
    family = [pool for pool in declared if pool.group == term.pool]
    affordable = [pool for pool in family if pool_reading(pool, entry)[0] >= term.amount]
    chosen = direct if direct is not None else (affordable[0] if affordable else None)
    if chosen is None:
        return None
    paid = spend(pools, entry, chosen.key, term.amount)
    return None if isinstance(paid, Refused) else paid.entry


def pay(
    values: SheetValues, pools: Sequence[PoolSpec], entry: LiveEntry, cost: Sequence[ContextualCost]
) -> LiveEntry | None:
    """004, "Costes que marcan un contador": the whole cost from `entry`, or None (nothing paid)."""
    working = entry
    for term in cost:
        if term.track is not None and term.by is not None:
            moved = move_track(values, working, term.track, "by", term.by)
            if isinstance(moved, Refused):
                return None
            working = moved.entry
            continue
        after = _pay_pool(pools, working, term)
        if after is None:
            return None
        working = after
    return working


def _best(values: SheetValues, number: CheckNumber) -> CheckNumber:
    """004, "El mejor valor": a skill check rolls the best skill rating when it is higher."""
    if number.kind != "skill":
        return number
    best: CheckParts | None = None
    for skill in values.sheet.skills:
        parts = values.check_parts("skill", skill.id, number.with_ability)
        if parts is not None and (best is None or parts.number > best.number):
            best = parts
    if best is None or best.number <= number.sheet_number:
        return number
    sheet_number = best.number
    return dataclasses.replace(
        number,
        ability=best.ability,
        ability_modifier=best.ability_modifier,
        tier=best.tier.id,
        tier_bonus=best.tier_bonus,
        free_bonus=best.free_bonus,
        untrained_by=best.untrained_by,
        uncapped=best.uncapped,
        cap=best.cap,
        capped=best.capped,
        sheet_number=sheet_number,
        number=sheet_number + number.adjust_total + number.penalty,
    )


def _one_thing(matched: Iterable[Source]) -> list[Source]:
    """The sources a name matched, a row the matched entry's pick wrote counting as that entry."""
    found = list(matched)
    refs = {source.ref for source in found if isinstance(source, EntrySource)}
    return [s for s in found if not (isinstance(s, RowSource) and s.mark in refs)]


def _from_name(name: str) -> str:
    """ENGINE-NOTES §1: `from` names with `[ ] ;` made spaces."""
    return " ".join(_FROM_UNSAFE.sub(" ", name).split())


def _lowest(face: int | None, other: int | None) -> int | None:
    return other if face is None else face if other is None else min(face, other)


def apply_contextual(
    written: str | None,
    number: CheckNumber,
    values: SheetValues | None,
    pools: Sequence[PoolSpec],
    entry: LiveEntry,
    limits: Limits = DEFAULT_LIMITS,
) -> Contextual:
    """The rows and entries `apply=` names that apply to this check, paid for, as effects.

    `entry` is the roller's live entry as the check's purchases left it. A
    stranger or a check with no sheet applies nothing.
    """
    names = read_names(written, limits)
    if not names or values is None or values.card is None:
        return Contextual()
    sources = _row_sources(values) + _entry_sources(values)
    working = entry
    paid = False
    applied: list[str] = []
    bonus = pool_dice = successes = dice_count = 0
    dice: list[tuple[int, int, int]] = []
    explode: int | None = None
    double: int | None = None
    cancel = True
    best = False
    for name in names:
        wanted = check_name(name)
        matched = _one_thing(source for source in sources if wanted in source.answers)
        if len(matched) != 1 or not matched[0].applies(values, number):
            continue
        source = matched[0]
        if source.cost:
            after = pay(values, pools, working, source.cost)
            if after is None:
                continue
            working, paid = after, True
        applied.append(_from_name(source.name))
        bonus += source.modifier(number)
        cell = read_dice(source.dice, limits)
        if cell is not None and dice_count + cell[0] <= limits.effect_dice:
            dice.append(cell)
            dice_count += cell[0]
        effect = source.check
        if effect is not None:
            pool_dice += effect.dice or 0
            successes += effect.successes or 0
            explode = _lowest(explode, effect.explode)
            double = _lowest(double, effect.double)
            cancel = cancel and effect.cancel is not False
            best = best or effect.best is True
    if not applied:
        return Contextual()
    effects = Effects(
        names=tuple(applied),
        bonus=bonus,
        dice=tuple(dice),
        pool_dice=pool_dice,
        successes=successes,
        explode=explode,
        double=double,
        cancel=cancel,
    )
    rolled = _best(values, number) if best else number
    return Contextual(effects, rolled, working if paid else None)


def handful(effects: Effects) -> int:
    """The dice the effects add to a kind that throws a handful: bonus, dice cells, `check.dice`."""
    return effects.bonus + sum(count for count, _, _ in effects.dice) + effects.pool_dice


def throw_effects(effects: Effects, tray: Tray) -> tuple[list[int], int]:
    """The dice cells thrown (after the check's own dice) and the total the effects add."""
    faces: list[int] = []
    total = effects.bonus
    for count, sides, plus in effects.dice:
        thrown = tray.throw_many(count, sides)
        faces += thrown
        total += sum(thrown) + plus
    return faces, total


def effect_dice(effects: Effects) -> int:
    """How many dice the effects' dice cells throw (for the tray's limit)."""
    return sum(count for count, _, _ in effects.dice)
