"""Building blocks of the ruleset models: the strict base model and text types."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, StringConstraints
from pydantic_core import PydanticCustomError

from gmtags.text import prompt_safe_problem


class RulesetModel(BaseModel):
    """A strict, frozen part of the ruleset file: unknown keys and wrong types are refused.

    Keys keep the file's camelCase names as aliases (`penaltyFrom`), with
    snake_case attribute names in Python.
    """

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        validate_by_alias=True,
        validate_by_name=False,
        validate_default=True,
    )


def check_prompt_safe(value: str) -> str:
    """SCHEMA-NOTES §1: `value` as it is when it is prompt-safe text; the problem otherwise."""
    problem = prompt_safe_problem(value)
    if problem is not None:
        raise PydanticCustomError("prompt_safe", "prompt-safe text {problem}", {"problem": problem})
    return value


PROMPT_SAFE = AfterValidator(check_prompt_safe)
"""Annotate a `str` type with this to make it prompt-safe text (SCHEMA-NOTES §1)."""


PromptSafe80 = Annotated[str, StringConstraints(max_length=80), PROMPT_SAFE]
PromptSafe160 = Annotated[str, StringConstraints(max_length=160), PROMPT_SAFE]
PromptSafe400 = Annotated[str, StringConstraints(max_length=400), PROMPT_SAFE]
PromptSafe1500 = Annotated[str, StringConstraints(max_length=1500), PROMPT_SAFE]
PromptSafe16000 = Annotated[str, StringConstraints(max_length=16000), PROMPT_SAFE]
RulesetId = Annotated[str, StringConstraints(max_length=64, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")]
SheetId = Annotated[str, StringConstraints(max_length=40, pattern=r"^[a-z][a-z0-9_]*$")]
