"""The `combat` and `battle` sections: how a fight is resolved, and what one may borrow.

SCHEMA-NOTES §11 is the authority; 000 adds the `symbol-pool` combat kind
("Sus combates son de tipo symbol-pool") and 002 says what `combat.health`
and `damageKinds` mean ("Un combate también puede marcarlo", "¿Qué forma
necesita tu sistema?"). gmtags does not play fights yet; the sections are
checked so that a file which would be refused is refused at import, every
problem at its path below the section (`economy.budgets`, `attackRoll`).

Every model is strict: unknown keys are refused. The rules between keys of a
section are reported together once its shapes are valid (shape errors first).
What needs the rest of the file (the pool or track `health` names, `defense`
as a value that exists, the resolution kind, `damageKinds` against a wound
track) is checked by `gmtags.ruleset.validate.combat`.
`Ruleset.combat` and `Ruleset.battle` stay the file's JSON.

Kept as raw JSON, because SCHEMA-NOTES names the key but not its shape
(a strict shape made up here would refuse real files):
- `combat`: `attackRoll`, `pool`, `distance`, `ranged`, `cover`,
  `opportunity`, `offHand`, `attacks`, `abilities`, `standardEffects`, each of
  `conditions` (only their count, ≤80, is given; the closed list of 19 effects
  is in neither the notes nor the seeds, so `effects` is not checked), `levels`,
  `checks`, `contests`, `concentration`, `dying`, `damageTypes`, `damageKinds`,
  `threat`, `spendLimits`; inside `initiative`, all of `dice`, `pool`,
  `modifier`, `plus`, `each` and `resource`; inside `economy`, each budget
  (only their count, 1–8) and `movement`.
- `battle`: `energy` and `skills`.

Decisions where the notes are silent:
- `combat.health` has the shape of `battle.health`, `{pool}` or `{track}`
  (002: "Apunta combat.health al contador en vez de a una reserva").
- `initiative` rolls `dice` or a `pool`, exactly one ("dice|pool").
- A symbol-pool combat (000) is neither required nor refused an `attackRoll`
  or a `pool`: the notes, which predate it, say nothing of its keys.
- A standard action is named once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, Self

from pydantic import Field, TypeAdapter, model_validator
from pydantic_core import PydanticCustomError

from gmtags.ruleset.base import RulesetModel, SheetId
from gmtags.ruleset.catalogs import StandardAction
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.resolution.common import Found, raise_found

RawJson = Any
"""A key SCHEMA-NOTES names without giving its shape: kept as the JSON the file holds."""

# SCHEMA-NOTES §11: at most 80 conditions, 1–8 budgets, 12 battle slots.
MAX_CONDITIONS = 80
MAX_BUDGETS = 8
MAX_BATTLE_SLOTS = 12


class Health(RulesetModel):
    """§11 `health{pool}|{track}`: what a fight damages, a live pool or a live track (a wound
    track is marked by `combat.damageKinds`, 002)."""

    pool: SheetId | None = None
    track: SheetId | None = None

    @model_validator(mode="after")
    def _one_of(self) -> Self:
        """Exactly one of `pool` and `track`."""
        if (self.pool is None) == (self.track is None):
            raise PydanticCustomError("health", "health names exactly one of pool or track")
        return self


# ---------------------------------------------------------------------------
# combat (§11)

CombatKind = Literal["attack-vs-defense", "dice-pool", "symbol-pool"]
"""§11: attack-vs-defense or dice-pool; 000 adds symbol-pool."""


class Initiative(RulesetModel):
    """§11 `initiative{dice|pool, modifier?, plus?, each?, resource?}`: who acts first."""

    dice: RawJson = None
    pool: RawJson = None
    modifier: RawJson = None
    plus: RawJson = None
    each: RawJson = None
    resource: RawJson = None

    @model_validator(mode="after")
    def _one_of(self) -> Self:
        """Exactly one of `dice` and `pool`."""
        if (self.dice is None) == (self.pool is None):
            raise PydanticCustomError("initiative", "initiative rolls exactly one of dice or pool")
        return self


class Economy(RulesetModel):
    """§11 `economy{budgets 1–8, movement?}`: what a turn may spend."""

    budgets: Annotated[list[RawJson], Field(min_length=1, max_length=MAX_BUDGETS)]
    movement: RawJson = None


_NEEDS: dict[str, tuple[str, str]] = {
    "attack-vs-defense": ("attackRoll", "pool"),
    "dice-pool": ("pool", "attackRoll"),
}
"""§11: the key each kind needs and the key it refuses."""


class Combat(RulesetModel):
    """SCHEMA-NOTES §11, `combat`: how a fight is resolved by these rules.

    Rules between its keys: an attack-vs-defense combat needs `attackRoll` and
    refuses `pool`, a dice-pool one the reverse (§11); a standard action is
    named once. `Health` and `Initiative` check their own "exactly one", so
    those are reported even while the rest of the section has shape errors.
    """

    kind: CombatKind
    health: Health
    defense: RulesetValueRef
    initiative: Initiative
    attack_roll: RawJson = Field(default=None, alias="attackRoll")
    pool: RawJson = None
    economy: Economy
    distance: RawJson = None
    ranged: RawJson = None
    cover: RawJson = None
    opportunity: RawJson = None
    off_hand: RawJson = Field(default=None, alias="offHand")
    attacks: RawJson = None
    abilities: RawJson = None
    standard: Annotated[list[StandardAction], Field(max_length=6)] | None = None
    standard_effects: RawJson = Field(default=None, alias="standardEffects")
    conditions: Annotated[list[RawJson], Field(max_length=MAX_CONDITIONS)] | None = None
    levels: RawJson = None
    checks: RawJson = None
    contests: RawJson = None
    concentration: RawJson = None
    dying: RawJson = None
    damage_types: RawJson = Field(default=None, alias="damageTypes")
    damage_kinds: RawJson = Field(default=None, alias="damageKinds")
    threat: RawJson = None
    spend_limits: RawJson = Field(default=None, alias="spendLimits")

    @model_validator(mode="after")
    def _rules_hold(self) -> Self:
        raise_found(self.rules(), "combat")
        return self

    def rules(self) -> Found:
        """Every rule between the section's keys (class docstring), each at its location."""
        found: Found = []
        needs = _NEEDS.get(self.kind)
        if needs is not None:
            wanted, refused = needs
            given = {"attackRoll": self.attack_roll, "pool": self.pool}
            if given[wanted] is None:
                found.append(((wanted,), f"a {self.kind} combat needs {wanted}"))
            if given[refused] is not None:
                found.append(((refused,), f"a {self.kind} combat has no {refused}"))
        seen: set[str] = set()
        for place, action in enumerate(self.standard or ()):
            if action in seen:
                found.append((("standard", place), f"standard action '{action}' repeats"))
            seen.add(action)
        return found


COMBAT: TypeAdapter[Combat | None] = TypeAdapter(Combat | None)
"""The whole `combat` section (or its absence), as `parse_combat` validates it."""


def parse_combat(raw: Mapping[str, Any] | None) -> Combat | None:
    """Validate the `combat` section strictly; None when the file has none.

    Raises `ValidationError` listing every problem at its path below `combat`
    (`economy.budgets`, `attackRoll`): shapes first, and once those are sound,
    every rule between the section's keys at once.
    """
    return COMBAT.validate_python(None if raw is None else dict(raw))


# ---------------------------------------------------------------------------
# battle (§11)


class BattleSlot(RulesetModel):
    """§11 `slots[]`: `{pool, level 1–9}`, a pool of spell slots of one level."""

    pool: SheetId
    level: Annotated[int, Field(ge=1, le=9)]


class Battle(RulesetModel):
    """SCHEMA-NOTES §11, `battle`: what the Engine's own combat may borrow from the sheet:
    `health` (one of a pool or a track), `energy?`, `slots?` (≤12) and `skills?`."""

    health: Health
    energy: RawJson = None
    slots: Annotated[list[BattleSlot], Field(max_length=MAX_BATTLE_SLOTS)] | None = None
    skills: RawJson = None


BATTLE: TypeAdapter[Battle | None] = TypeAdapter(Battle | None)
"""The whole `battle` section (or its absence), as `parse_battle` validates it."""


def parse_battle(raw: Mapping[str, Any] | None) -> Battle | None:
    """Validate the `battle` section strictly; None when the file has none.

    Raises `ValidationError` listing every problem at its path below `battle`
    (`slots.3.level`, `health`).
    """
    return BATTLE.validate_python(None if raw is None else dict(raw))
