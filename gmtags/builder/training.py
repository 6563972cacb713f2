"""Skills and saves a character's picks train, and the training choices they offer (004).

004, "Lo que da una selección…": "trained entrena habilidades y salvaciones,
y ofrece elecciones… Se entrenan al tier de la concesión o, si no, al tier del
creador o, si no, al primer nivel por encima de sin entrenar que ofrece la
ficha para habilidades o salvaciones. Una elección nunca ofrece lo que las
selecciones ya entrenan a su nivel o a uno superior, directamente o mediante
una elección anterior (1.104)… Una elección guardada antes de que se tomara
así no cuenta para nada, de modo que el paso pide otra, y no se muestra una
elección a la que no le queda nada que ofrecer." `held` (1.105): "solo ofrece
lo que las selecciones entrenan a ese nivel o superior, o lo que una elección
por debajo de su propio nivel tiene en él". Training choices also take `tier`,
`only: any | trained | untrained` and `onDuplicate: "replace"` (with
`replacementFrom`): "La elegibilidad lee el entrenamiento manual y las
concesiones activas anteriores, excluyendo las escrituras previas del propio
creador. Una habilidad seleccionada que ya entrenan esas fuentes abre una
posición de sustitución aparte entre las habilidades sin entrenar del mismo
tipo, conservando la respuesta original… Su clave guardada es la clave de la
posición original más /replacement."

Tiers are ranked by their order in `resolution.proficiencyTiers`, the first
being untrained (000). `Training` walks the grants of the active picks in
order, each a direct training or a choice, so a choice reads what the player
trained by hand and what every earlier grant gave, never what the builder
itself wrote before (the card's builder-written tiers are not passed in).

Decisions where the seed is silent (BUILDER.md §3 where it has one):
- Two grants training one skill at different tiers: the higher tier wins
  (§3.10), and the hand-written tier is the floor of both.
- `only: "trained"` offers what is trained at any tier above untrained;
  `"untrained"` what is not.
- A choice with nothing left to offer is not shown and asks for nothing;
  one with fewer offerable than its count asks for what is offerable, plus
  every saved answer that stopped counting (§3.5: "el paso pide otra").
- With `onDuplicate: "replace"`, an answer already trained by those sources
  counts as the original answer (kept) and opens its replacement slot; only
  the replacement trains. Without it, such an answer counts for nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from gmtags.ruleset.catalogs import TrainingChoice

What = Literal["skills", "saves"]


@dataclass(frozen=True, slots=True)
class Tiers:
    """The ruleset's training tiers, lowest first (the first is untrained), and the tiers the
    sheet offers for skills and for saves (`skillTiers`/`saveTiers`, else all)."""

    order: tuple[str, ...]
    skills: tuple[str, ...] | None = None
    saves: tuple[str, ...] | None = None
    builder: str | None = None
    """`builder.tier`: the tier a grant without its own trains at."""

    def rank(self, tier: str | None) -> int:
        """A tier's place in the order (an unknown or no tier is untrained: 0)."""
        return self.order.index(tier) if tier in self.order else 0

    def grant_tier(self, what: What, own: str | None) -> str:
        """The tier a grant trains at: its own, else the builder's, else the first the sheet
        offers for skills or saves above untrained (004)."""
        if own is not None:
            return own
        if self.builder is not None:
            return self.builder
        offered = (self.skills if what == "skills" else self.saves) or self.order
        above = [tier for tier in offered if self.rank(tier) > 0]
        return above[0] if above else self.order[-1]


@dataclass(frozen=True, slots=True)
class Slot:
    """A training choice as answered: its key (SPEC §10), the choice, its grant's tier, the
    answers in order and the replacement answers (`<key>/replacement`)."""

    key: str
    choice: TrainingChoice
    tier: str | None
    answers: Sequence[str]
    replacements: Sequence[str] = ()
    count: int | None = None
    excluded: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class SlotResult:
    """What one choice offered and took (SPEC §10's `choices` entries)."""

    key: str
    shown: bool
    offered: tuple[str, ...]
    active: tuple[str, ...]
    inactive: tuple[tuple[str, str], ...]
    pending: int
    replacement: SlotResult | None = None


@dataclass
class Training:
    """Training as the grants of the active picks give it, walked in order (module doc).

    `manual` holds what the player trained by hand (`skills`/`saves` of the card, less
    what the builder wrote); `ids` the sheet's skill and save ids.
    """

    tiers: Tiers
    ids: Mapping[What, Sequence[str]]
    manual: Mapping[What, Mapping[str, str]]
    granted: dict[What, dict[str, str]] = field(default_factory=lambda: {"skills": {}, "saves": {}})
    slots: list[SlotResult] = field(default_factory=list)

    def held(self, what: What, name: str) -> str | None:
        """The tier `name` is trained at by hand or by the grants so far (the higher)."""
        found = [self.manual[what].get(name), self.granted[what].get(name)]
        ranked = [tier for tier in found if tier is not None]
        return max(ranked, key=self.tiers.rank) if ranked else None

    def train(self, what: What, name: str, tier: str) -> None:
        """Train `name` at `tier` unless a grant already trains it higher (§3.10)."""
        if name not in self.ids[what]:
            return
        current = self.granted[what].get(name)
        if current is None or self.tiers.rank(tier) > self.tiers.rank(current):
            self.granted[what][name] = tier

    def grant(self, what: What, names: Sequence[str], own_tier: str | None) -> None:
        """A grant's direct `skills` or `saves`."""
        tier = self.tiers.grant_tier(what, own_tier)
        for name in names:
            self.train(what, name, tier)

    def choose(self, slot: Slot) -> SlotResult:
        """One training choice (module doc): offered, taken, and its replacement slot."""
        choice = slot.choice
        what: What = choice.what
        tier = self.tiers.grant_tier(what, choice.tier or slot.tier)
        pool = [n for n in (choice.from_ or self.ids[what]) if n in self.ids[what]]
        pool = [n for n in pool if n not in slot.excluded and self._eligible(what, n, choice)]
        fresh = [n for n in pool if not self._trained_at(what, n, tier)]
        offered = pool if choice.on_duplicate else fresh
        count = slot.count if slot.count is not None else choice.count or 0
        active: list[str] = []
        inactive: list[tuple[str, str]] = []
        duplicates: list[str] = []
        stopped = 0
        for answer in slot.answers:
            if answer in active or answer in duplicates:
                inactive.append((answer, "already chosen"))
            elif answer not in pool:
                inactive.append((answer, "not offered by this choice"))
            elif self._trained_at(what, answer, tier) and not choice.on_duplicate:
                inactive.append((answer, "already trained at this tier"))
                stopped += 1
            elif len(active) + len(duplicates) >= count:
                inactive.append((answer, f"the choice takes {count}"))
            elif self._trained_at(what, answer, tier):
                duplicates.append(answer)
            else:
                active.append(answer)
        replacement = self._replace(slot, what, tier, duplicates) if duplicates else None
        for name in active:
            self.train(what, name, tier)
        asked = min(count, len(offered) + stopped)
        taken = len(active) + len(duplicates)
        shown = bool(offered) or bool(slot.answers)
        result = SlotResult(
            slot.key,
            shown,
            tuple(offered),
            tuple(active + duplicates),
            tuple(inactive),
            max(0, asked - taken) if shown else 0,
            replacement,
        )
        self.slots.append(result)
        return result

    def _eligible(self, what: What, name: str, choice: TrainingChoice) -> bool:
        """`only` and `held` (module doc), read from the hand-written and granted tiers."""
        held = self.held(what, name)
        if choice.only == "trained" and self.tiers.rank(held) == 0:
            return False
        if choice.only == "untrained" and self.tiers.rank(held) > 0:
            return False
        return choice.held is None or self.tiers.rank(held) >= self.tiers.rank(choice.held)

    def _trained_at(self, what: What, name: str, tier: str) -> bool:
        return self.tiers.rank(self.held(what, name)) >= self.tiers.rank(tier)

    def _replace(self, slot: Slot, what: What, tier: str, duplicates: list[str]) -> SlotResult:
        """The replacement slot duplicates open: untrained ones of the same kind, from
        `replacementFrom` when the choice names it, respecting exclusions and the tier."""
        choice = slot.choice
        source = choice.replacement_from or self.ids[what]
        offered = [
            n
            for n in source
            if n in self.ids[what]
            and n not in slot.excluded
            and n not in duplicates
            and self.tiers.rank(self.held(what, n)) == 0
        ]
        active: list[str] = []
        inactive: list[tuple[str, str]] = []
        for answer in slot.replacements:
            if answer in active:
                inactive.append((answer, "already chosen"))
            elif answer not in offered:
                inactive.append((answer, "not offered by this replacement"))
            elif len(active) >= len(duplicates):
                inactive.append((answer, f"the replacement takes {len(duplicates)}"))
            else:
                active.append(answer)
        for name in active:
            self.train(what, name, tier)
        asked = min(len(duplicates), len(offered))
        return SlotResult(
            f"{slot.key}/replacement",
            True,
            tuple(offered),
            tuple(active),
            tuple(inactive),
            max(0, asked - len(active)),
        )


__all__ = ["Slot", "SlotResult", "Tiers", "Training", "What"]
