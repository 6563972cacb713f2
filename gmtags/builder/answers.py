"""The builder's answers document (SPEC §10), read strictly: every problem at its JSON path.

The answers are what the player said to each step, and nothing the builder
works out: a script, the terminal wizard and the web page all write this
document, and `build_character` recomputes the card from it (SPEC §10: "the
card is a pure function of the ruleset, the answers and the card's own
hand-written values"). Its shape:

    {"v": 1, "seed": 42, "described": false,
     "steps": {"<step id>": {<the keys that step kind reads>}},
     "choices": {"<slot key>": ["<value>", ...]}}

A step's answer holds any of `picks` (entry ids in selection order), `fields`
(field id → value), `method` and `scores` (an abilities step), `kits`,
`priorities` (allocate group → position), `dots` (target key → dots), `buys`
(offer id → net steps, negative lowers), `rows` (a rows step's rows),
`visited`, `rolls` (roll key → `{faces, attempt}` or `{tries: [{faces}]}`)
and `set` (confirmations of an initialize step). Target keys are
`ability/<id>`, `skill/<id>`, `save/<id>`, `field/<id>` or `bonus/<id>`.

`AnswersError` is raised only for a document that is not this shape, listing
every problem with its path (`steps.scores.rolls.str.faces.2`); an answer
naming nothing the ruleset has (an unknown step, entry or ability) is the
right shape and is reported by the builder as a value (`res.problems`),
never raised. Files are strict JSON (`gmtags.jsonfile`): nesting past 100
levels, `NaN`/`Infinity`, integers of more than 21 digits, a key repeated in
one object and a lone UTF-16 surrogate half (`"\\ud800"`) are refused at
their line and column; answers handed over as an object are held to the same
rules at their JSON path.

Decision (SPEC §8 names the lone surrogate; it leaves which readers refuse it):
answers refuse one, as request bodies and ruleset files do. Answers are what a
player typed into a builder or a script wrote, never text carried over from an
older chat, so nothing that worked before needs one; a chat file or a state
(`gmtags.transcript`, `gmtags.state`) keeps reading them.

Decisions where SPEC §10 is silent:
- Unknown keys are refused everywhere (a misspelt `pick` would otherwise be
  an answer silently ignored); `v` is required and is 1.
- Bounds, so that no answers file can make the builder work without end: 32
  steps (the builder's ceiling), 120 picks, kits, buys or dots per step, 500
  rows, 64 rolls, 3 tries, 100 faces a roll, 200 choice slots of 60 values;
  numbers are whole from −1,000,000 to 1,000,000, a field's number any finite
  one; text at most 4,000 characters (a long text field), keys at most 200.
- `seed` is a whole number from 0 to 2⁶³−1 (the seeds gmtags derives fit a
  signed 64-bit integer); absent, the builder draws one and records it.
- A roll's `attempt` is 0–99; a roll holds `faces` or `tries`, never both
  (`{"attempt": 1}` alone asks for the retry to be made).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Annotated, Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StringConstraints,
    ValidationError,
    model_validator,
)
from pydantic.types import AllowInfNan
from pydantic_core import PydanticCustomError

from gmtags.errors import AnswersError, Problem, json_path
from gmtags.jsonfile import JsonTextError, data_problem, dumps, json_type, loads

BOUND = 1_000_000
"""The largest size of a whole number an answer holds (a score, dots, net steps)."""

MAX_STEPS = 32
MAX_PICKS = 120
MAX_ROWS = 500
MAX_ROLLS = 64
MAX_FACES = 100
MAX_CHOICES = 200
MAX_CHOSEN = 60

Whole = Annotated[StrictInt, Field(ge=-BOUND, le=BOUND)]
Key = Annotated[str, StringConstraints(min_length=1, max_length=200)]
Word = Annotated[str, StringConstraints(min_length=1, max_length=80)]
Text = Annotated[str, StringConstraints(max_length=4000)]
Value = StrictBool | StrictInt | Annotated[StrictFloat, AllowInfNan(False)] | Text
"""A field's or a row cell's value: a boolean, a finite number or a text."""
TargetKey = Annotated[
    str,
    StringConstraints(max_length=200, pattern=r"^(ability|skill|save|field|bonus)/[^/]+$"),
]
"""`ability/<id>`, `skill/<id>`, `save/<id>`, `field/<id>` or `bonus/<id>` (SPEC §10)."""
Method = Literal["pointBuy", "standardArray", "roll", "rolls", "manual"]
"""004: the abilities step's methods."""


class AnswersModel(BaseModel):
    """A strict, frozen part of the answers: unknown keys and wrong types are refused."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, strict=True, populate_by_name=True, hide_input_in_errors=True
    )


class Try(AnswersModel):
    """One try of a `best` roll: its faces, in the order thrown."""

    faces: Annotated[list[StrictInt], Field(min_length=1, max_length=MAX_FACES)]


class RecordedRoll(AnswersModel):
    """A creation roll as made: `{faces, attempt}`, or `{tries: [{faces}]}` for a `best` roll."""

    faces: Annotated[list[StrictInt], Field(min_length=1, max_length=MAX_FACES)] | None = None
    tries: Annotated[list[Try], Field(min_length=1, max_length=3)] | None = None
    attempt: Annotated[StrictInt, Field(ge=0, le=99)] = 0

    @model_validator(mode="after")
    def _faces_or_tries(self) -> Self:
        if self.faces is not None and self.tries is not None:
            raise PydanticCustomError("roll", "a roll holds faces or tries, never both")
        return self


class StepAnswer(AnswersModel):
    """What the player said to one step (module doc); only the keys its kind reads count."""

    picks: Annotated[list[Key], Field(max_length=MAX_PICKS)] | None = None
    fields: Annotated[dict[Key, Value], Field(max_length=240)] | None = None
    method: Method | None = None
    scores: Annotated[dict[Key, Whole], Field(max_length=64)] | None = None
    kits: Annotated[list[Key], Field(max_length=MAX_PICKS)] | None = None
    priorities: (
        Annotated[dict[Key, Annotated[StrictInt, Field(ge=0, le=11)]], Field(max_length=12)] | None
    ) = None
    dots: Annotated[dict[TargetKey, Whole], Field(max_length=MAX_PICKS)] | None = None
    buys: Annotated[dict[Key, Whole], Field(max_length=MAX_PICKS)] | None = None
    rows: Annotated[list[dict[Key, Value]], Field(max_length=MAX_ROWS)] | None = None
    visited: StrictBool | None = None
    rolls: Annotated[dict[Key, RecordedRoll], Field(max_length=MAX_ROLLS)] | None = None
    set: Annotated[StrictInt, Field(ge=0, le=1000)] | None = None


class Answers(AnswersModel):
    """The answers document of SPEC §10."""

    v: Literal[1]
    seed: Annotated[StrictInt, Field(ge=0, le=2**63 - 1)] | None = None
    described: StrictBool | None = None
    steps: Annotated[dict[Key, StepAnswer], Field(max_length=MAX_STEPS)] = {}
    choices: Annotated[
        dict[Key, Annotated[list[Word], Field(max_length=MAX_CHOSEN)]],
        Field(max_length=MAX_CHOICES),
    ] = {}

    def step(self, step_id: str) -> StepAnswer:
        """The answer to `step_id` (an empty one when the player has said nothing to it)."""
        return self.steps.get(step_id) or _NOTHING

    def to_json(self) -> str:
        """The answers as strict JSON, keys the player did not give left out."""
        return dumps(self.model_dump(mode="json", by_alias=True, exclude_none=True))


_NOTHING = StepAnswer()


def read_answers(data: Any) -> Answers:
    """The answers in a parsed JSON value; `AnswersError` lists every problem at its path.

    SPEC §1 and §8: a value of any JSON type is read or refused with `AnswersError`, never
    `TypeError`; one that is no object at all is one problem at `(root)`."""
    if not isinstance(data, dict):
        message = f"the answers are a JSON object, not {json_type(data)}"
        raise AnswersError([Problem("(root)", message)])
    problem = data_problem(data, surrogates=False)
    if problem is not None:
        location, message = problem
        raise AnswersError([Problem(_path(location), message)])
    try:
        return Answers.model_validate(data)
    except ValidationError as error:
        raise AnswersError(
            Problem(_path(item["loc"]), item["msg"]) for item in error.errors()
        ) from None


def _path(location: Iterable[int | str]) -> str:
    """The JSON path of a place in the answers, an empty key spelt `""` so that the path
    still names it (`{"": 1}` is an unknown key at `""`, not at an empty path)."""
    return json_path('""' if part == "" else part for part in location)


def load_answers(source: str | os.PathLike[str] | dict[str, Any]) -> Answers:
    """Read the answers from a JSON file (strict JSON, UTF-8) or an object already parsed."""
    if isinstance(source, dict):
        return read_answers(source)
    with open(source, "rb") as handle:
        raw = handle.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise AnswersError([Problem("(file)", f"not UTF-8 text at byte {error.start}")]) from None
    try:
        data = loads(text, surrogates=False)
    except JsonTextError as error:
        raise AnswersError([Problem("(file)", str(error))]) from None
    return read_answers(data)


__all__ = [
    "Answers",
    "AnswersError",
    "RecordedRoll",
    "StepAnswer",
    "Try",
    "load_answers",
    "read_answers",
]
