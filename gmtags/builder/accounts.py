"""A creation pool's account and the prices paid from it: what `gmtags.builder.pools` settles
(its module doc says how), kept apart from the build so every step kind can name them."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gmtags.ruleset.builder import Pool, Ref
from gmtags.ruleset.builder.common import MAX_POOL_BUDGET
from gmtags.ruleset.builder.steps import CatalogStep, PickCost
from gmtags.ruleset.catalogs import CatalogEntry
from gmtags.sheet.values import SheetValues

CANNOT_PAY = "pool '{}' cannot pay it"
NO_CREDIT = "pool '{}' takes no more credit"


def whole(number: float) -> int | None:
    """`number` as a whole number of points, or None when it is not one."""
    if not math.isfinite(number) or number != math.floor(number):
        return None
    return int(number)


@dataclass
class Account:
    """One pool as this build spends it (module doc)."""

    id: str
    budget: int
    reason: str | None
    """Why the pool is not configured (None when it is)."""
    credit_limit: int
    caps: dict[str, int]
    spent: int = 0
    credit: int = 0
    tagged: dict[str, int] = field(default_factory=dict)
    """Gross credit taken by offers of each capped tag."""
    left_for_picks: int = 0
    """What the priced picks left (the gate for an entry not picked)."""
    credit_for_picks: int = 0
    """The credit the priced picks took."""

    @property
    def remaining(self) -> int:
        return self.budget - self.spent + self.credit

    def takes(self, amount: int, tags: tuple[str, ...] = ()) -> bool:
        """Whether `amount` more credit fits the credit limit and the caps of `tags` (D9)."""
        if self.credit + amount > self.credit_limit:
            return False
        return all(self.tagged.get(t, 0) + amount <= self.caps[t] for t in tags if t in self.caps)

    def pay(self, price: int, tags: tuple[str, ...] = ()) -> None:
        """Count a price: a positive one is spent, a negative one is credit."""
        if price >= 0:
            self.spent += price
            return
        self.credit -= price
        for tag in tags:
            if tag in self.caps:
                self.tagged[tag] = self.tagged.get(tag, 0) - price

    def refuses(self, price: int | None) -> str | None:
        """Why the pool could not pay `price` now, after the priced picks (None: it could):
        a pool not configured or an unpriced thing, credit past its limit, points it lacks."""
        if self.reason is not None or price is None:
            return CANNOT_PAY.format(self.id)
        if price < 0 and self.credit_for_picks - price > self.credit_limit:
            return NO_CREDIT.format(self.id)
        if price > 0 and self.left_for_picks < price:
            return CANNOT_PAY.format(self.id)
        return None

    def entry(self) -> dict[str, int]:
        """The pool's `res.pools` entry (SPEC §10)."""
        return {
            "budget": self.budget,
            "spent": self.spent,
            "credit": self.credit,
            "remaining": self.remaining,
        }


def open_account(pool: Pool, values: SheetValues, budget_ref: Ref | None = None) -> Account:
    """The pool with its budget (`budget_ref`, else its own) read on the sheet (module doc)."""
    read = values.value(budget_ref if budget_ref is not None else pool.budget)
    budget = whole(read)
    reason = None
    if budget is None or not 0 <= budget <= MAX_POOL_BUDGET:
        reason = "not configured (the budget is not a whole number from 0 to 100,000)"
        budget = 0
    caps = {cap.filter: cap.max_credit for cap in pool.caps or ()}
    return Account(pool.id, budget, reason, pool.credit_limit or 0, caps)


@dataclass
class Charge:
    """A priced pick (or row) to pay from a pool: its step, item, price (None: no price)."""

    pool: str
    step: str
    item: str
    price: int | None


def pick_price(step: CatalogStep, entry: CatalogEntry) -> int | None:
    """A catalog step's price for `entry`: the number, or the entry's own numeric filter."""
    cost = step.cost
    if cost is None:
        return None
    if isinstance(cost, PickCost):
        mark = (entry.filters or {}).get(cost.filter)
        if isinstance(mark, bool) or not isinstance(mark, int | float):
            return None
        return whole(mark)
    return whole(cost)


__all__ = [
    "CANNOT_PAY",
    "NO_CREDIT",
    "Account",
    "Charge",
    "open_account",
    "pick_price",
    "whole",
]
