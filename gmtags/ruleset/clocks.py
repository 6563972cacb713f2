"""The top-level `clocks` object (002, "Relojes de progreso del grupo y de la escena")."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator

from gmtags.ruleset.base import PromptSafe400, RulesetModel

ClockSize = Annotated[int, Field(ge=2, le=12)]


class ClocksConfig(RulesetModel):
    """Which clock sizes a GM may create and how many clocks are kept at once.

    002: the object is strict (only these three keys); `sizes` holds one to six
    distinct sizes of 2 to 12 segments (default [4, 6, 8]); `max` is 1 to 12
    (default 8); `text` is one prompt-safe line of at most 400 characters. An
    empty object enables the defaults.
    """

    sizes: Annotated[list[ClockSize], Field(min_length=1, max_length=6)] = [4, 6, 8]
    max: Annotated[int, Field(ge=1, le=12)] = 8
    text: PromptSafe400 | None = None

    @field_validator("sizes")
    @classmethod
    def _distinct(cls, sizes: list[int]) -> list[int]:
        if len(set(sizes)) != len(sizes):
            raise ValueError("clock sizes must be distinct")
        return sizes
