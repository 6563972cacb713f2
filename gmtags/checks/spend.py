"""Paying inside a check: `spend="pool:N"` and `use="Entry"` (charms).

000, "Gastar para cambiar una tirada": a standing `resolution.spend` entry is
bought with `spend="resolve:1"` written in the check itself. The pool is
named by id or label, ignoring case; N must be a whole number of purchases
(`amount` each) or nothing is bought; asking for more than `perCheck` is
clamped, not refused (`perCheck` is a number, a sheet value rounded down and
held to 0..100, or `"pool"`: the sheet's number before wounds, `adjust` and
bonus dice). A dice-pool buys successes, dice and a reroll (once, however many
purchases); a dice-highest only dice; the other kinds nothing (import rejects
the rest; at run time they are ignored).

000, "Un amuleto que cambia una tirada": `use=` names a catalog entry the
character picked whose `mechanics.check` changes a dice-pool roll. Its price
is the entry's `cost` (found and planned as `[sheet: op="use"]` does,
`gmtags.sheet.use`); with `perCostStep` it is bought as many times as the
written `spend=` pays its price (at most ×5, ENGINE-NOTES §5), without it once
whatever is offered. With `use=` the standing spend is not used.

"Todo o nada.": the whole cost is paid through the pool arithmetic of
`[sheet: op="spend"]` (`gmtags.sheet.live`); a pool that cannot cover it buys
nothing and is charged nothing, and the check rolls as it would have. A
stranger, an unknown pool or entry, an entry not picked, one whose catalog the
engine cannot read (an asset or a borrowed catalog) or one without
`mechanics.check` buys nothing. The check is the typed entry's, validated at
import (`Ruleset.catalog_models`), never read again here.

Decisions where the seeds are silent:
- a charm's `spend=` naming a pool its price does not use buys nothing;
- scaling multiplies every term of the price (and the uses of the entry's
  own counters) by the number of steps;
- the receipt's `spend=` lists each pool paid as `id:amount`, joined by `, `.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gmtags.checks.context import NOTHING_BOUGHT, Bought
from gmtags.checks.request import CheckRequest, clamp
from gmtags.limits import DEFAULT_LIMITS, Limits
from gmtags.ruleset.resolution import ResolutionRules, SpendEntry
from gmtags.sheet.live import (
    PoolSpec,
    Refused,
    find_pool,
    pool_reading,
    same_name,
    spend,
    with_pool,
)
from gmtags.sheet.numbers import CheckNumber
from gmtags.sheet.use import KnownEntry, catalog_entries, find_entry, plan_use
from gmtags.sheet.values import SheetValues, whole
from gmtags.state.snapshot import LiveEntry
from gmtags.text import parse_int

PER_CHECK_RANGE = (0, 100)
"""000: a `perCheck` read from the sheet is rounded down and held to 0..100."""


@dataclass(frozen=True, slots=True)
class Purchase:
    """What a check bought and the roller's live entry after paying (None: nothing paid)."""

    bought: Bought = NOTHING_BOUGHT
    entry: LiveEntry | None = None


NOTHING = Purchase()


@dataclass(frozen=True, slots=True)
class Payer:
    """The roller as a purchase sees them: sheet values, pools now and the stored live entry."""

    values: SheetValues
    pools: tuple[PoolSpec, ...]
    entry: LiveEntry
    limits: Limits = DEFAULT_LIMITS
    """SPEC §8: how many digits a number written in the tag may have, how far a charm scales."""

    @property
    def digits(self) -> int:
        """How many digits a number written in the tag may have."""
        return self.limits.integer_digits


def read_spend(written: str | None, digits: int) -> tuple[str, int] | None:
    """`spend="pool:N"` as (pool, N); None when absent or not that shape, or N < 1. An N longer
    than `digits` reads as the largest of that length (SPEC §8), so it is refused as more than
    the pool holds, like any other amount too big, never silently dropped."""
    if written is None or ":" not in written:
        return None
    pool, _, amount = written.rpartition(":")
    count = parse_int(amount, digits, saturate=True)
    if not pool.strip() or count is None or count < 1:
        return None
    return pool.strip(), count


def _per_check(entry: SpendEntry, values: SheetValues, number: CheckNumber) -> int:
    """000: how many purchases one check may make."""
    cap = entry.per_check
    if isinstance(cap, int):
        return cap
    read = number.sheet_number if cap == "pool" else values.value(cap)
    return clamp(whole(read), *PER_CHECK_RANGE)


def _pay(payer: Payer, plan: Sequence[tuple[PoolSpec, int]]) -> LiveEntry | None:
    """Pay every step through the pools' arithmetic, or nothing (000, "Todo o nada.")."""
    working = payer.entry
    for pool, amount in plan:
        value, temp = pool_reading(pool, working)
        if value < amount:
            return None
        working = with_pool(pool, working, value - amount, temp)
    return working


def standing_spend(
    rules: ResolutionRules, request: CheckRequest, number: CheckNumber, payer: Payer
) -> Purchase:
    """000, "Gastar para cambiar una tirada": a `resolution.spend` entry bought on a check;
    what it may buy is the kind's (`ResolutionRules.buys`)."""
    allowed = rules.buys
    spends: Sequence[SpendEntry] = getattr(rules, "spend", None) or []
    asked = read_spend(request.spend, payer.digits)
    if not allowed or asked is None:
        return NOTHING
    pool = find_pool(payer.pools, asked[0])
    if isinstance(pool, Refused):
        return NOTHING
    rule = next((e for e in spends if e.pool == pool.key), None)
    if rule is None or asked[1] % rule.amount:
        return NOTHING
    count = min(asked[1] // rule.amount, _per_check(rule, payer.values, number))
    if count <= 0:
        return NOTHING
    cost = count * rule.amount
    paid = spend(payer.pools, payer.entry, pool.key, cost)
    if isinstance(paid, Refused):
        return NOTHING
    bought = Bought(
        successes=count * (rule.successes or 0) if "successes" in allowed else 0,
        dice=count * (rule.dice or 0) if "dice" in allowed else 0,
        reroll=rule.reroll if "reroll" in allowed else None,
        spend=f"{rule.pool}:{cost}",
    )
    return Purchase(bought, paid.entry)


def _steps(chosen: KnownEntry, scales: bool, written: str | None, payer: Payer) -> int:
    """How many times a charm is bought: 1, or what `spend=` pays of its price (≤ ×5); 0: none."""
    asked = read_spend(written, payer.digits)
    if not scales or asked is None:
        return 1
    pool = find_pool(payer.pools, asked[0])
    for term, amount in chosen.cost:
        named = same_name(asked[0], term) or (
            not isinstance(pool, Refused) and term in (pool.key, pool.group)
        )
        if named:
            return 0 if asked[1] % amount else min(asked[1] // amount, payer.limits.scaling_steps)
    return 0


def charm(rules: ResolutionRules, request: CheckRequest, payer: Payer) -> Purchase:
    """000, "Un amuleto que cambia una tirada": `use=` a picked entry's `mechanics.check`
    ("Solo dice-pool puede aplicarlo": `ResolutionRules.charms`)."""
    values = payer.values
    if not rules.charms or request.use is None or values.card is None:
        return NOTHING
    ruleset = values.ruleset
    chosen = find_entry(ruleset, values.card, catalog_entries(ruleset), request.use)
    if isinstance(chosen, Refused):
        return NOTHING
    mechanics = chosen.entry.mechanics
    effect = mechanics.check if mechanics is not None else None
    if mechanics is None or effect is None:
        return NOTHING
    steps = _steps(chosen, mechanics.per_cost_step is not None, request.spend, payer)
    plan = plan_use(values, payer.pools, payer.entry, chosen, None)
    if steps <= 0 or isinstance(plan, Refused):
        return NOTHING
    totals: dict[str, tuple[PoolSpec, int]] = {}
    for pool, amount in plan:
        paid = totals.get(pool.key, (pool, 0))[1]
        totals[pool.key] = (pool, paid + amount * steps)
    after = _pay(payer, list(totals.values()))
    if after is None:
        return NOTHING
    spent = ", ".join(f"{key}:{amount}" for key, (_, amount) in totals.items())
    bought = Bought(
        successes=steps * (effect.successes or 0),
        dice=steps * (effect.dice or 0),
        reroll=effect.reroll,
        threshold=effect.threshold,
        explode=effect.explode,
        double=effect.double,
        spend=spent or None,
        use=chosen.label,
    )
    return Purchase(bought, after)


def purchase(
    rules: ResolutionRules, request: CheckRequest, number: CheckNumber, payer: Payer
) -> Purchase:
    """What a check buys before it is thrown: a charm when `use=` is written, else a spend."""
    if request.use is not None:
        return charm(rules, request, payer)
    return standing_spend(rules, request, number, payer)
