"""000, "Franjas de resultado": outcome tiers, read from the number or from a critical."""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import (
    Field,
    model_validator,
)

from gmtags.ruleset.base import PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.resolution.common import (
    Found,
    Loc,
    PromptSafe200,
    distinct,
    raise_found,
)


class OutcomeTier(RulesetModel):
    """000, "Franjas de resultado": one tier; the tier decides success and critical.

    `atLeast` is the lowest number landing in the tier; `on` makes it the tier a
    critical lands in (and nothing else), with no `atLeast`.
    """

    id: SheetId
    label: PromptSafe80
    at_least: Annotated[int, Field(ge=-10000, le=10000)] | None = Field(
        default=None, alias="atLeast"
    )
    success: bool = False
    critical: bool = False
    on: Literal["critical-success", "critical-failure"] | None = None
    text: PromptSafe200 | None = None


class Outcomes(RulesetModel):
    """000, "Franjas de resultado: más que éxito o fracaso": 2–8 tiers, the best first.

    Tiers read from the number have strictly descending `atLeast`, the last of
    them none (it catches everything below). A tier `on` a critical has no
    `atLeast`, a critical-success one is a success and a critical-failure one
    is not, at most one of each, placed above (below) every tier read from the
    number. At least one tier succeeds and one fails. `by: "fraction"` (only
    an at-most roll-against; checked by the kind) divides the target by each
    `atLeast`, so those are whole numbers from 1. `naturals: "shift"` needs a
    single die and `resolution.naturals` none (checked by the kind).
    """

    by: Literal["margin", "total", "fraction"] = "margin"
    naturals: Literal["shift"] | None = None
    tiers: Annotated[list[OutcomeTier], Field(min_length=2, max_length=8)]

    @model_validator(mode="after")
    def _tier_rules(self) -> Self:
        found = distinct([tier.id for tier in self.tiers], ("tiers",), "tier id", ("id",))
        numbered = [(position, tier) for position, tier in enumerate(self.tiers) if tier.on is None]
        found += self._critical_tiers(numbered)
        if not numbered:
            found.append((("tiers",), "at least one tier must be read from the number (no on)"))
        above: int | None = None
        for order, (position, tier) in enumerate(numbered):
            at = ("tiers", position, "atLeast")
            last = order == len(numbered) - 1
            if last and tier.at_least is not None:
                found.append((at, "the last tier has no atLeast: it catches everything below"))
            elif not last and tier.at_least is None:
                found.append((at, "every tier but the last needs atLeast"))
            if tier.at_least is None:
                continue
            if above is not None and tier.at_least >= above:
                found.append((at, f"atLeast must be lower than the tier above's ({above})"))
            if self.by == "fraction" and tier.at_least < 1:
                found.append((at, "with by: fraction, atLeast divides the target: 1 or more"))
            above = tier.at_least
        if not any(tier.success for tier in self.tiers):
            found.append((("tiers",), "at least one tier must be a success"))
        if all(tier.success for tier in self.tiers):
            found.append((("tiers",), "at least one tier must be a failure"))
        raise_found(found, "Outcomes")
        return self

    def _critical_tiers(self, numbered: list[tuple[int, OutcomeTier]]) -> Found:
        found: Found = []
        first = numbered[0][0] if numbered else len(self.tiers)
        last = numbered[-1][0] if numbered else -1
        seen: set[str] = set()
        for position, tier in enumerate(self.tiers):
            if tier.on is None:
                continue
            at: Loc = ("tiers", position)
            if tier.at_least is not None:
                found.append(((*at, "atLeast"), f"a tier on {tier.on} has no atLeast"))
            if tier.on in seen:
                found.append(((*at, "on"), f"at most one tier is on {tier.on}"))
            seen.add(tier.on)
            if tier.on == "critical-success":
                if not tier.success:
                    found.append(((*at, "success"), "a critical-success tier is a success"))
                if position > first:
                    found.append(((*at, "on"), "best first: a critical-success tier goes on top"))
            else:
                if tier.success:
                    found.append(((*at, "success"), "a critical-failure tier is not a success"))
                if position < last:
                    found.append(
                        ((*at, "on"), "best first: a critical-failure tier goes at the bottom")
                    )
        return found
