"""Creation profiles and reads of the sheet before a step (004, 1.160; BUILDER G1–G4, §3.21).

004: "el primer perfil cuyo `when` lee por encima de 0 es el del personaje"; its
`steps` are shown only while the character's profile lists them, its `budgets`
replace those pools' own budgets. `reads: {"before": step}` on a catalog or an
initialize step reads `offeredWhen`/`upTo` (or the values it writes) on the
sheet as the steps before `step` leave it.

Decisions where the seed is silent (BUILDER.md §3 where it has one):
- A profile's `when` is read on the sheet as the steps before the first step any
  profile lists leave it (§3.21). 004 lets a profile bring "sus propios pasos y
  presupuestos": when no profile lists a step (budgets only), it is read where
  those budgets are: on the sheet the pools settle on, before any purchase
  (`gmtags.builder.pools`); with no pool settled, on the finished sheet, so the
  builder still says which profile is the character's.
- A step some profile lists is hidden, like a step whose `when` reads 0, while
  the character has no profile or a profile that does not list it: its answers
  are kept, it grants and pays nothing, its badge is 0 (G2).
- A profile's budget replaces the pool's own for the whole build, read when the
  pools are settled like any budget; a pool the profile does not name keeps its
  own. With no profile every pool keeps its own (G3).
- "The sheet before a step" is the build made again with that step and every
  later one hidden (as a `when` of 0 hides it): their picks, grants, buys,
  rolls and writes are gone, the player's own values and the steps before are
  kept; it is made with the gates of the build it serves, so it does not depend
  on navigation history (G4).
- A catalog step with `reads.before` reads `offeredWhen` and `upTo` there, its
  `countFrom` still on the sheet as it is; it reads no exclusive group apart
  (its own picks are already out of that sheet).
- An entry-choice slot's `countFrom` (G10) is read, floored and held to 0..`max` like the
  ability and training slots, on the sheet as the entry choices find it: after the scores
  and the training, before any entry choice writes its rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gmtags.builder.state import read_count

if TYPE_CHECKING:
    from gmtags.builder.state import State
    from gmtags.ruleset.builder import Builder, Pool, Ref
    from gmtags.ruleset.catalogs import EntryChoice
    from gmtags.sheet.values import SheetValues


def listed(builder: Builder) -> set[str]:
    """The steps some profile lists."""
    return {name for profile in builder.profiles for name in profile.steps}


def decide(state: State, step: Any) -> None:
    """Before `step` runs: the character's profile, read once, before the first listed step."""
    if state.profile_read or not state.builder.profiles or step.id not in listed(state.builder):
        return
    _read(state, state.values())


def decide_late(state: State, values: SheetValues | None = None) -> None:
    """The profile of a builder whose profiles list no step, read once on `values` (the sheet
    the pools settle on), else on the sheet as it is (the finished one; module doc)."""
    if not state.profile_read and state.builder.profiles:
        _read(state, values if values is not None else state.values())


def _read(state: State, values: SheetValues) -> None:
    """004: "El primer perfil cuyo when lee más de 0 es el del personaje"."""
    state.profile_read = True
    state.profile = next((p.id for p in state.builder.profiles if values.value(p.when) > 0), None)


def hidden(state: State, step: Any) -> bool:
    """Whether `step` is hidden by the profiles, or cut from a build of the sheet before a step."""
    if state.cut is not None and step.id in state.cut:
        return True
    if step.id not in listed(state.builder):
        return False
    profile = next((p for p in state.builder.profiles if p.id == state.profile), None)
    return profile is None or step.id not in profile.steps


def budget(state: State, pool: Pool) -> Ref:
    """The pool's budget: the character's profile's, else its own (module doc)."""
    profile = next((p for p in state.builder.profiles if p.id == state.profile), None)
    if profile is not None and pool.id in (profile.budgets or {}):
        return (profile.budgets or {})[pool.id]
    return pool.budget


def slot_count(choice: EntryChoice, values: SheetValues) -> int:
    """An entry-choice slot's size: `count`, or `countFrom` floored and held to 0..`max`."""
    if choice.count_from is None:
        return choice.count or 0
    return read_count(values, choice.count_from, choice.max or 0)


def cut_from(builder: Builder, step_id: str) -> frozenset[str]:
    """`step_id` and every step after it."""
    ids = [s.id for s in builder.steps]
    return frozenset(ids[ids.index(step_id) :]) if step_id in ids else frozenset()


__all__ = ["budget", "cut_from", "decide", "decide_late", "hidden", "listed", "slot_count"]
