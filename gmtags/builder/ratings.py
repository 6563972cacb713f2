"""Free rating dots the picks give (004, `grants.ratings`, 1.152) on targets no allocate step
stages: "un add positivo o un set no negativo, nunca ambos"; the highest `set`, then every
`add` (BUILDER C8), never past the target's storage limit.

An allocate step applies the grants on its own targets at their first stage
(`gmtags.builder.kinds.allocate`); every other target (a skill a spend step buys, a field
nothing stages) gets them here, once every step has run and before any purchase, so they are
free and never charged (004: "Los valores iniciales y las concesiones gratuitas se conservan
y nunca se vuelven a cobrar"). A skill or save target reads and writes its tier map's index
(`builder.ratingTiers`); a target the sheet lacks gives nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gmtags.builder.targets import Spot, spot
from gmtags.ruleset.builder.steps import AllocateStep, target_key

if TYPE_CHECKING:
    from gmtags.builder.state import Entry, State


def _current(state: State, target: Spot) -> int:
    """The target's value before the grants: its tier's index, or its number."""
    now: Any = state.writer.writes.get(target.path)
    if now is None:
        now = state.writer.own(target.path)
    if target.tiers is not None:
        tier = now.get("tier") if isinstance(now, dict) else now
        return target.tiers.index(tier) if tier in target.tiers else 0
    if isinstance(now, bool) or not isinstance(now, int | float):
        return int(target.default)
    return int(now)


def free_ratings(state: State, by_id: dict[str, Entry]) -> None:
    """Apply the rating grants of targets no shown allocate step stages (module doc)."""
    staged = {
        target_key(t)
        for step in state.builder.steps
        if isinstance(step, AllocateStep) and by_id[step.id]["shown"]
        for group in step.groups
        for t in group.targets
    }
    grants: dict[str, list[Any]] = {}
    for _, listed in state.rating_grants:
        for grant in listed:
            key = target_key(grant.target)
            if key not in staged:
                grants.setdefault(key, []).append(grant)
    for given in grants.values():
        found = spot(state, given[0].target)
        if found is None:
            continue
        target = found.whole()
        value = _current(state, target)
        high = int(target.high)
        sets = [g.set for g in given if g.set is not None]
        if sets:
            value = max(value, min(high, max(sets)))
        value = min(high, value + sum(g.add for g in given if g.add is not None))
        if target.tiers is None:
            state.writer.write(target.path, value)
            continue
        own = state.writer.own(target.path)
        tier = target.tiers[value]
        state.writer.write(target.path, {**own, "tier": tier} if isinstance(own, dict) else tier)


__all__ = ["free_ratings"]
