"""The dice a handful-throwing kind shares: a pool's die and the GM's situational dice.

dice-pool and dice-highest (000) both throw the sheet's number of one kind of
die, and both let the GM add or take dice with `bonus=`.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from gmtags.ruleset.base import RulesetModel


class PoolDie(RulesetModel):
    """000: the faces of each die of the pool, 2 to 100."""

    sides: Annotated[int, Field(ge=2, le=100)]


class SituationalDice(RulesetModel):
    """000: the dice the GM may add or take away with `bonus=` (SCHEMA-NOTES §5: −20..0, 0..20)."""

    min: Annotated[int, Field(ge=-20, le=0)]
    max: Annotated[int, Field(ge=0, le=20)]
