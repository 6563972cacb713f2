"""Ability scores in the builder: point buy, and what picks add and let the player choose (004).

Pure arithmetic over plain values, so that `build_character` can recompute a
character from scratch on every change (SPEC §10): every raise is recorded as
the change actually applied after the clamps, which is exactly what
deselecting the pick removes (004, "Deseleccionar retira": "sus aumentos,
tanto como los límites de las puntuaciones les dejaron subir").

Point buy (004, `abilities` step): "un budget que no supere lo que cuesta
comprar todas las puntuaciones hasta arriba, y el coste de cada puntuación
desde la más baja, en la que empiezan todas, subiendo de una en una; una
puntuación escrita a mano parte de la puntuación más cercana de la tabla".
The table is `[[score, total cost], …]` (5e: `[[8,0],[9,1],…,[15,9]]`, budget
27, so 15, 15, 15, 8, 8, 8 spends 9 + 9 + 9).

Grants (004, "Lo que da una selección…"): `abilities.add` adds to scores and
`abilities.choose` lets the player pick `count` scores (never one twice
unless `repeat`, never one of `except`, only ones of `from`), `amount` each;
"ninguna puntuación supera su max"; `upTo` "limita hasta dónde puede subir
una puntuación la propia elección, después de lo que añaden todas las demás
concesiones" and "el paso desactiva una puntuación que ya está en ese valor";
`partialFrom`: "Una puntuación que ya está en esa marca o por encima cuando
llega la elección recibe un aumento parcial, y dos parciales dan amount una
vez. Las elecciones cuentan en el orden en que las hace el creador, después
de cada aumento completo". A computed ability (1.156) is never raised.

Decisions where the seed is silent (BUILDER.md §3 where it has one):
- Every `add` of the active picks applies first, then the choices in the
  order the player made them (BUILDER §2.2), so `upTo` reads what the other
  grants added.
- A choice answer that cannot count (a score it does not offer, one already
  chosen without `repeat`, one past `count`, one `upTo` or the score's max
  leaves no room for) is kept and inactive, with its reason; the choice then
  still asks for another (its badge counts it).
- A raise cut by a clamp is recorded as what it really added (0 is kept as
  an inactive answer: "already at its maximum"); a partial boost adds nothing
  until its pair, and is recorded as a partial.
- Point buy: a score below the table's lowest costs nothing below it and one
  above its highest is off the table: it is written as answered, costs
  nothing it cannot price, and counts in the step's badge (BUILDER §3.12:
  never blocks). The nearest table score of a hand-written one is the lower
  of two equally near.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from gmtags.ruleset.catalogs import AbilityChoice

# ---------------------------------------------------------------------------
# Point buy


@dataclass(frozen=True, slots=True)
class PointBuy:
    """What a point-buy answer spends: `spent` of `budget`, and the scores off its table."""

    budget: int
    spent: int
    off_table: tuple[str, ...]

    @property
    def remaining(self) -> int:
        """Budget left; negative when overspent (never refused: the badge counts it)."""
        return self.budget - self.spent

    @property
    def pending(self) -> int:
        """The step's badge: one for an overspent budget, one per score off the table."""
        return int(self.remaining < 0) + len(self.off_table)


def point_cost(costs: Sequence[tuple[int, int]], score: int) -> int | None:
    """The total cost of buying a score up to `score` (None when the table has no row for it)."""
    for value, cost in costs:
        if value == score:
            return cost
    return None


def full_cost(costs: Sequence[tuple[int, int]], scores: int) -> int:
    """What buying every one of `scores` scores to the table's top costs (a budget's ceiling)."""
    return max(cost for _, cost in costs) * scores


def point_buy(
    costs: Sequence[tuple[int, int]],
    budget: int,
    scores: Mapping[str, int],
    abilities: Iterable[str],
) -> PointBuy:
    """The point buy of `scores` for `abilities` (a score not answered stays at the bottom)."""
    spent = 0
    off: list[str] = []
    for ability in abilities:
        score = scores.get(ability, costs[0][0])
        cost = point_cost(costs, score)
        if cost is None:
            off.append(ability)
        else:
            spent += cost
    return PointBuy(budget, spent, tuple(off))


def nearest_table_score(costs: Sequence[tuple[int, int]], written: int) -> int:
    """Where a hand-written score starts in point buy: the nearest table score, the lower of
    two equally near (004: "parte de la puntuación más cercana de la tabla")."""
    return min((value for value, _ in costs), key=lambda value: (abs(value - written), value))


# ---------------------------------------------------------------------------
# Grants


@dataclass(frozen=True, slots=True)
class Raise:
    """One raise a grant made: the ability, what it really added after the clamps, its source
    (the pick or the choice slot) and, for a `partialFrom` choice, whether it was a partial."""

    ability: str
    added: int
    source: str
    partial: bool = False


@dataclass(frozen=True, slots=True)
class Inactive:
    """A choice answer kept but counting for nothing, and why."""

    source: str
    answer: str
    reason: str


@dataclass(frozen=True, slots=True)
class Granted:
    """Scores after the grants, every raise as applied, and the answers that did not count."""

    scores: dict[str, int]
    raises: tuple[Raise, ...]
    inactive: tuple[Inactive, ...]

    def added(self, ability: str) -> int:
        """What the grants added to `ability` in all."""
        return sum(r.added for r in self.raises if r.ability == ability)


@dataclass(frozen=True, slots=True)
class Chosen:
    """One choice slot as answered: its key (SPEC §10), the grant's choice and the answers in
    the order the player gave them."""

    key: str
    choice: AbilityChoice
    answers: Sequence[str]
    count: int | None = None
    """How many the choice asks for when it counts from the sheet (`countFrom`, floored, at
    most its `max`); None reads the choice's own `count`."""
    excluded: frozenset[str] = frozenset()
    """Scores another slot's answers keep out of this one (`excludeChoices`)."""


@dataclass
class _Scores:
    """The scores being raised, their ceilings, and the partial boosts waiting for a pair."""

    values: dict[str, int]
    highs: Mapping[str, int]
    raises: list[Raise] = field(default_factory=list)
    inactive: list[Inactive] = field(default_factory=list)
    partials: dict[str, int] = field(default_factory=dict)

    def raise_by(self, ability: str, amount: int, source: str, cap: int | None = None) -> int:
        """Add up to `amount` (never past the ability's max, nor `cap`); what was added."""
        top = self.highs[ability] if cap is None else min(cap, self.highs[ability])
        added = max(0, min(amount, top - self.values[ability]))
        self.values[ability] += added
        if added:
            self.raises.append(Raise(ability, added, source))
        return added


def grant_scores(
    base: Mapping[str, int],
    highs: Mapping[str, int],
    adds: Sequence[tuple[str, Mapping[str, int]]],
    choices: Sequence[Chosen],
    computed: frozenset[str] = frozenset(),
) -> Granted:
    """Apply the active picks' `add`s (`(source, {ability: n})`, in pick order), then their
    choices in the order made, to `base`, each clamped at the ability's max in `highs`."""
    state = _Scores(dict(base), highs)
    for source, add in adds:
        for ability, amount in add.items():
            if ability in state.values and ability not in computed:
                state.raise_by(ability, amount, source)
    for chosen in choices:
        _choose(state, chosen, computed)
    return Granted(state.values, tuple(state.raises), tuple(state.inactive))


def offered_scores(
    choice: AbilityChoice, abilities: Iterable[str], computed: frozenset[str] = frozenset()
) -> list[str]:
    """The scores a choice offers: the sheet's (`from` ∩ them), less `except` and computed."""
    names = [a for a in abilities if a not in computed]
    if choice.from_ is not None:
        names = [a for a in names if a in choice.from_]
    return [a for a in names if a not in (choice.except_ or ())]


def _choose(state: _Scores, chosen: Chosen, computed: frozenset[str]) -> None:
    choice = chosen.choice
    offered = set(offered_scores(choice, state.values, computed)) - chosen.excluded
    count = chosen.count if chosen.count is not None else choice.count or 0
    taken: list[str] = []
    for answer in chosen.answers:
        reason = _refusal(state, choice, answer, offered, taken, count)
        if reason is not None:
            state.inactive.append(Inactive(chosen.key, answer, reason))
            continue
        taken.append(answer)
        _boost(state, choice, answer, chosen.key)


def _refusal(
    state: _Scores,
    choice: AbilityChoice,
    answer: str,
    offered: set[str],
    taken: Sequence[str],
    count: int,
) -> str | None:
    """Why one answer to a choice counts for nothing (None when it counts)."""
    if answer not in offered:
        return "not offered by this choice"
    if answer in taken and not choice.repeat:
        return "already chosen"
    if len(taken) >= count:
        return f"the choice takes {count}"
    top = state.highs[answer] if choice.up_to is None else min(choice.up_to, state.highs[answer])
    if state.values[answer] >= top:
        return f"already at {top}"
    return None


def _boost(state: _Scores, choice: AbilityChoice, ability: str, source: str) -> None:
    """One chosen boost: full, or a partial that pays `amount` once its pair arrives."""
    mark = choice.partial_from
    if mark is not None and state.values[ability] >= mark:
        waiting = state.partials.get(ability, 0) + 1
        if waiting < 2:
            state.partials[ability] = waiting
            state.raises.append(Raise(ability, 0, source, partial=True))
            return
        state.partials[ability] = 0
    state.raise_by(ability, choice.amount, source, choice.up_to)


__all__ = [
    "Chosen",
    "Granted",
    "Inactive",
    "PointBuy",
    "Raise",
    "full_cost",
    "grant_scores",
    "nearest_table_score",
    "offered_scores",
    "point_buy",
    "point_cost",
]
