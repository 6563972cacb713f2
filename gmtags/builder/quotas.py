"""Counted picks (004 1.151, "Elecciones contadas"; BUILDER G6, G8, G9, G14): which of a
step's (or an entry choice's) picks count under its `quotas`, `distinctBy`, `quotaBelow`
and its own size.

004: "Los mínimos afectan a la insignia; los máximos desactivan más selecciones
coincidentes. distinctBy nombra un filtro existente: las selecciones no pueden compartir
su valor (ni ninguna etiqueta, en un filtro de etiquetas), y una entrada a la que le falte
ese filtro no puede contar. Si no, la distinción es por ID de entrada. quotaBelow:
{ "filter": "tier" } exige estrictamente más selecciones activas en el nivel n−1 que en el
nivel n para los niveles enteros positivos por encima de 1. El nivel 1 es la base. Quitar
una selección que sirve de apoyo deja inactivas las selecciones superiores sobrantes,
retirando sus concesiones y conservando sus respuestas para repararlas." Entry choices
take the same rules "limitadas por max o count".

`count` never raises and never drops an answer: a pick that cannot count is returned
inactive with its reason; only the active picks grant anything (the caller applies them).

Decisions where the seed is silent (BUILDER §3 where it has one):
- Picks are read in selection order and the earliest count (§3.3): a pick past a
  quota's `max`, sharing a `distinctBy` value with an earlier active pick, or past the
  step's size is inactive; a pick one rule turns away takes no room under the others.
- A quota matches an entry whose filter value equals its `value` (numbers by value, so
  4 and 4.0 are one), or, on a tags filter, whose tags hold it. An entry without the
  filter matches no quota.
- `distinctBy` compares every tag of a tags filter; text is compared as written.
- `quotaBelow`: only entries whose filter is a whole number ≥ 1 have a tier; others
  (no filter, text, a fraction, 0 or below) are neither held by it nor support anything.
  Tiers are settled upwards: at each tier n > 1 at most (active at n−1) − 1 picks stay,
  the earliest; the latest go inactive (§3.28). A pick it turns away stays out while the
  others are counted again (so a pick the quotas or the size held back may take its room),
  until nothing changes; the active picks then meet every rule at once.
- The badge: the larger of the step's own shortfall (its `min`, or the choice's count,
  minus the active picks) and the quotas' shortfalls summed (each `min` not reached), so a
  missing pick is counted once; each unmet quota is listed among the reasons. Inactive
  picks add nothing beyond that, as the other reasons a pick cannot count do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from gmtags.builder.result import Inactive
from gmtags.ruleset.catalogs import CatalogEntry, Quota, QuotaBelow


class Counts(Protocol):
    """What a catalog step and an entry choice (`grants.entries.choose`) both declare."""

    @property
    def quotas(self) -> list[Quota] | None: ...

    @property
    def distinct_by(self) -> str | None: ...

    @property
    def quota_below(self) -> QuotaBelow | None: ...


@dataclass
class Counted:
    """The picks that count, those that do not (with why), and what the badge adds."""

    active: list[str] = field(default_factory=list)
    inactive: list[Inactive] = field(default_factory=list)
    short: int = 0
    """How many picks the quotas' `min`s still ask for, together."""
    reasons: list[str] = field(default_factory=list)


def _values(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else [value]


def _same(left: object, right: object) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    return left == right


def matches(quota: Quota, entry: CatalogEntry) -> bool:
    """Whether `entry` counts towards `quota` (module doc)."""
    have = (entry.filters or {}).get(quota.filter)
    return have is not None and any(_same(v, quota.value) for v in _values(have))


def tier(entry: CatalogEntry, name: str) -> int | None:
    """The entry's `quotaBelow` tier: its filter as a whole number ≥ 1, else None."""
    value = (entry.filters or {}).get(name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value != math.floor(value) or value < 1:
        return None
    return int(value)


def _shown(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _first_pass(
    rules: Counts, picks: Sequence[CatalogEntry], most: int, noun: str
) -> tuple[list[CatalogEntry], dict[str, str]]:
    """The earliest picks the quotas' maxima, `distinctBy` and the size let count."""
    taken: list[CatalogEntry] = []
    away: dict[str, str] = {}
    used: dict[int, int] = {}
    seen: list[object] = []
    key = rules.distinct_by
    for entry in picks:
        if key is not None:
            have = (entry.filters or {}).get(key)
            if have is None or have == []:
                away[entry.id] = f"has no '{key}' to tell it apart (distinctBy)"
                continue
            shared = next((v for v in _values(have) if any(_same(v, s) for s in seen)), None)
            if shared is not None:
                away[entry.id] = f"shares {key} '{_shown(shared)}' with an earlier pick"
                continue
        full = next(
            (
                (place, quota)
                for place, quota in enumerate(rules.quotas or ())
                if matches(quota, entry) and used.get(place, 0) >= quota.max
            ),
            None,
        )
        if full is not None:
            quota = full[1]
            away[entry.id] = f"{quota.filter} {_shown(quota.value)} takes {quota.max}"
            continue
        if len(taken) >= most:
            away[entry.id] = f"the {noun} takes {most}"
            continue
        taken.append(entry)
        for place, quota in enumerate(rules.quotas or ()):
            if matches(quota, entry):
                used[place] = used.get(place, 0) + 1
        if key is not None:
            seen.extend(_values((entry.filters or {}).get(key)))
    return taken, away


def _surplus(name: str, taken: Sequence[CatalogEntry]) -> dict[str, str]:
    """The picks `quotaBelow` turns away: at each tier n > 1, the latest past (n−1) − 1."""
    at: dict[int, list[CatalogEntry]] = {}
    for entry in taken:
        found = tier(entry, name)
        if found is not None:
            at.setdefault(found, []).append(entry)
    away: dict[str, str] = {}
    below = len(at.get(1, []))
    for level in range(2, max(at, default=1) + 1):
        here = at.get(level, [])
        room = max(0, below - 1)
        for entry in here[room:]:
            away[entry.id] = f"needs more picks at {name} {level - 1} than at {level} (quotaBelow)"
        below = min(len(here), room)
    return away


def count(rules: Counts, picks: Sequence[CatalogEntry], most: int, noun: str = "step") -> Counted:
    """Which of `picks` (valid, distinct entries in selection order) count under `rules` and
    the size `most` (module doc); `noun` names the step or choice in a reason."""
    out: dict[str, str] = {}
    while True:
        kept = [e for e in picks if e.id not in out]
        taken, away = _first_pass(rules, kept, most, noun)
        extra = _surplus(rules.quota_below.filter, taken) if rules.quota_below else {}
        if not extra:
            break
        out.update(extra)
    away.update(out)
    result = Counted(
        active=[e.id for e in taken],
        inactive=[{"answer": e.id, "reason": away[e.id]} for e in picks if e.id in away],
    )
    for quota in rules.quotas or ():
        have = sum(1 for e in taken if matches(quota, e))
        if have < quota.min:
            result.short += quota.min - have
            result.reasons.append(
                f"{quota.filter} {_shown(quota.value)}: {have} of at least {quota.min}"
            )
    return result


__all__ = ["Counted", "Counts", "count", "matches", "tier"]
