"""Reading one ruleset file: its JSON, its shapes and its validation passes, every problem
with its JSON path.

`gmtags.ruleset.load.load_ruleset` reads a file this way and then its borrowed
catalogs (`gmtags.ruleset.borrow`), which read their lenders this way too: both
import this module, and neither imports the other.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from gmtags.errors import Problem, RulesetError, json_path
from gmtags.jsonfile import (
    DEPTH,
    LONE_SURROGATE,
    JsonTextError,
    loads,
    scalar_problem,
    spelt,
    text_problem,
)
from gmtags.ruleset.builder import read_builder
from gmtags.ruleset.character_sheet import BUILDER_APART
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.validate import validate

_RESERVED_IDS = frozenset({"engine-legacy", "traditional"})


FILE_BYTES = 256 * 1024
"""SCHEMA-NOTES §1, size limits: a ruleset file is at most 256 KiB (checked before parsing)."""


def _strip(
    value: Any, path: tuple[str | int, ...], problems: list[Problem], root: bool = False
) -> Any:
    """`strip_comments` at `path`; what a strict file could not hold goes to `problems`.

    The recursion is bounded: past `DEPTH` levels the walk stops and reports
    where (a dict handed to `load_ruleset` may nest without limit).
    """
    if isinstance(value, dict | list) and len(path) >= DEPTH:
        problems.append(Problem(json_path(path), f"nested deeper than {DEPTH} arrays and objects"))
        return value
    if isinstance(value, dict):
        kept: dict[str, Any] = {}
        for key, item in value.items():
            if key == "$comment" or (root and key == "$schema"):
                continue
            if not isinstance(key, str):
                problems.append(Problem(json_path(path), f"the key {key!r} is not a string"))
                continue
            if text_problem(key) is not None:
                problems.append(Problem(json_path(path), f"the key {spelt(key)}: {LONE_SURROGATE}"))
                continue
            kept[key] = _strip(item, (*path, key), problems)
        return kept
    if isinstance(value, list):
        return [_strip(item, (*path, index), problems) for index, item in enumerate(value)]
    problem = scalar_problem(value, surrogates=False)
    if problem is not None:
        problems.append(Problem(json_path(path), problem))
    return value


def strip_comments(value: Any, *, root: bool = True) -> Any:
    """Remove every `$comment` key at any depth, and `$schema` at the root (SCHEMA-NOTES §2).

    Issue 11: JSON data that no strict file could hold (nesting deeper than
    `gmtags.jsonfile.DEPTH`, `NaN` or infinite numbers, integers of more
    than 21 digits, a key or a string holding a lone UTF-16 surrogate half: `read_json`)
    raises `RulesetError` naming each place, never `RecursionError`.
    """
    problems: list[Problem] = []
    stripped = _strip(value, (), problems, root)
    if problems:
        raise RulesetError(problems)
    return stripped


def read_json(source: str | os.PathLike[str]) -> Any:
    """A ruleset file's JSON: at most 256 KiB, UTF-8, strict JSON (`gmtags.jsonfile.loads`).

    Decision (SPEC §8 names the lone surrogate and the repeated key; it leaves which
    readers refuse the first): a ruleset refuses both, read with `surrogates=False`. An
    author's file never needs a lone UTF-16 surrogate half (it is no character, and would
    reach every prompt), and a key written twice would otherwise let the second copy of a
    section win unseen. Only chat files and states keep reading lone halves (SPEC §8: "a
    chat that already holds such text … still works")."""
    with open(source, "rb") as handle:
        raw = handle.read(FILE_BYTES + 1)
    if len(raw) > FILE_BYTES:
        raise RulesetError([Problem("(file)", "the ruleset file is larger than 256 KiB")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RulesetError([Problem("(file)", f"not UTF-8 text at byte {error.start}")]) from None
    try:
        return loads(text, surrogates=False)
    except JsonTextError as error:
        raise RulesetError([Problem("(file)", str(error))]) from None


_STAND_INS: dict[str, Any] = {
    "schemaVersion": 1,
    "id": "stand-in",
    "version": 1,
    "name": "stand-in",
    "coverage": {"summary": "stand-in"},
    "sheet": {"version": 1},
    "gm": {},
    "resolution": {
        "kind": "dice-sum",
        "dice": {"count": 1, "sides": 20},
        "abilityModifier": {"op": "identity"},
        "proficiencyTiers": [{"id": "untrained", "label": "Untrained"}],
    },
}
"""A valid value for each required top-level key, put where the file's own has shape errors so
the passes over the other sections can still run: a stand-in holds nothing a pass could find
wrong, and no pass looks a name up in it (`gmtags.ruleset.validate.READS`)."""

_SHEET_STAND_INS: dict[str, Any] = {"version": 1}
"""The same for each required key of `sheet`."""


_APART = {BUILDER_APART: True}
"""Validation leaves the guided builders to `_builder_problems` (`WithBuilder.builder_parts`)."""


def _parse(data: dict[str, Any]) -> tuple[Ruleset | None, list[Problem], frozenset[str]]:
    """The ruleset, the shape problems, and the parts of the file that have them (`_part`).

    With shape problems, the model is built again from the file with each broken part
    left out (a stand-in where one is required), so that the passes reading only sound
    parts still run and an author sees every problem in one round. The guided builders
    (004) are read apart, after the rest: a problem in one hides nothing else of its sheet,
    and its passes check the parts of it that parsed.
    """
    ruleset: Ruleset | None
    try:
        ruleset = Ruleset.model_validate(data, context=_APART)
        problems: list[Problem] = []
        broken: frozenset[str] = frozenset()
    except ValidationError as error:
        items = error.errors()
        problems = [Problem(json_path(item["loc"]), item["msg"]) for item in items]
        if any(not item["loc"] for item in items):
            return None, problems, frozenset()
        broken = frozenset(_part(item["loc"]) for item in items)
        try:
            ruleset = Ruleset.model_validate(_patched(data, broken), context=_APART)
        except ValidationError:
            ruleset = None
    return ruleset, problems + _builder_problems(data, ruleset, broken), broken


def _part(loc: tuple[int | str, ...]) -> str:
    """The part of the file a shape problem at `loc` is in: a top-level section, or one key of
    the sheet (`sheet.fields`, `sheet.live`), whose other keys are still read."""
    return f"sheet.{loc[1]}" if loc[0] == "sheet" and len(loc) > 1 else str(loc[0])


def _patched(data: dict[str, Any], broken: frozenset[str]) -> dict[str, Any]:
    """`data` without its `broken` parts, with a stand-in for each one that is required."""
    patched = {key: value for key, value in data.items() if key not in broken}
    patched |= {key: _STAND_INS[key] for key in broken if key in _STAND_INS}
    keys = {part.removeprefix("sheet.") for part in broken if part.startswith("sheet.")}
    if keys and isinstance(data.get("sheet"), dict):
        sheet = {key: value for key, value in data["sheet"].items() if key not in keys}
        stand_ins = {key: value for key, value in _SHEET_STAND_INS.items() if key in keys}
        patched["sheet"] = sheet | stand_ins
    return patched


def _builder_problems(
    data: dict[str, Any], ruleset: Ruleset | None, broken: frozenset[str]
) -> list[Problem]:
    """Every problem of `sheet.builder` and `party.builder`, each at its path: read from the
    parsed sheet (`builder_parts`, which the passes read too), else from the file's JSON."""
    problems: list[Problem] = []
    for key in ("sheet", "party"):
        owner = getattr(ruleset, key) if ruleset is not None and key not in broken else None
        raw = data.get(key)
        if owner is not None:
            read = owner.builder_parts
        elif isinstance(raw, dict) and isinstance(raw.get("builder"), dict):
            read = read_builder(raw["builder"])
        else:
            continue
        problems += [
            Problem(json_path((key, "builder", *loc)), message) for loc, message in read.problems
        ]
    return problems


def read_validated(source: str | os.PathLike[str] | Mapping[str, Any]) -> Ruleset:
    """A ruleset, read and validated, without its borrowed catalogs: `load_ruleset` reads them
    next, and a lender is read this way, so that it never borrows in turn
    (`gmtags.ruleset.borrow`). Raises `RulesetError` listing every problem."""
    data: Any = read_json(source) if isinstance(source, (str, os.PathLike)) else source
    if not isinstance(data, Mapping):  # SPEC §1: bad input of any JSON type is a RulesetError
        raise RulesetError([Problem("(root)", "a ruleset must be a JSON object")])
    data = strip_comments(dict(data))
    problems: list[Problem] = []
    if isinstance(data.get("id"), str) and data["id"] in _RESERVED_IDS:
        problems.append(Problem("id", f"'{data['id']}' is a reserved ruleset id"))
    ruleset, shapes, broken = _parse(data)
    problems += shapes
    if ruleset is not None:
        problems += validate(ruleset, broken)
    if problems or ruleset is None:
        raise RulesetError(problems)
    return ruleset
