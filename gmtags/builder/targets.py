"""Where a builder target lives on the card (004: "exactamente un { ability }, { field }
numérico, { skill }, { save } o { bonus }"), shared by the allocate and spend step kinds.

A target's key is `ability/<id>`, `field/<id>`, `skill/<id>`, `save/<id>` or `bonus/<id>`
(SPEC §10), its path the card's section and id (`abilities.str`). A skill or save target is
its tier map's index (`builder.ratingTiers`, 004 1.152), so it holds 0 to the map's last.
A computed ability (1.156) is never a target: "El creador nunca fija una".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gmtags.ruleset.builder.steps import target_key
from gmtags.ruleset.catalogs import RatingTarget
from gmtags.ruleset.sheet import NumberField

if TYPE_CHECKING:
    from gmtags.builder.state import State

PATHS = {
    "ability": "abilities",
    "field": "fields",
    "bonus": "bonuses",
    "skill": "skills",
    "save": "saves",
}
"""The card section each kind of target lives in (`ability/strength` → `abilities.strength`)."""


@dataclass(frozen=True)
class Spot:
    """A target as the card holds it: its key, path, storage limits and tier map."""

    key: str
    path: str
    low: float
    high: float
    tiers: tuple[str, ...] | None
    default: float

    def whole(self) -> Spot:
        """The same target counted in whole steps (dots): limits rounded inward."""
        low, high = math.ceil(self.low), math.floor(self.high)
        default = max(low, min(high, math.floor(self.default)))
        return Spot(self.key, self.path, low, high, self.tiers, default)


def spot(state: State, target: RatingTarget) -> Spot | None:
    """Where `target` lives on the card, or None when the sheet has no such target."""
    key = target_key(target)
    kind, _, name = key.partition("/")
    path = f"{PATHS[kind]}.{name}"
    sheet = state.ruleset.sheet
    if kind == "ability":
        ability = next((a for a in sheet.abilities if a.id == name), None)
        if ability is None or ability.value is not None:
            return None
        return Spot(key, path, ability.min, ability.max, None, ability.default)
    if kind == "field":
        found = next((f for f in sheet.fields if f.id == name), None)
        if not isinstance(found, NumberField):
            return None
        default = found.default if found.default is not None else 0
        return Spot(key, path, found.min, found.max, None, max(found.min, min(found.max, default)))
    if kind == "bonus":
        named = {s.id for s in sheet.skills} | {s.id for s in sheet.saves}
        if name not in named:
            return None
        return Spot(key, path, sheet.bonus_range.min, sheet.bonus_range.max, None, 0)
    tiers = next((m.tiers for m in state.builder.rating_tiers if target_key(m.target) == key), None)
    known = sheet.skills if kind == "skill" else sheet.saves
    if tiers is None or not any(s.id == name for s in known):
        return None
    return Spot(key, path, 0, len(tiers) - 1, tuple(tiers), 0)


__all__ = ["PATHS", "Spot", "spot"]
