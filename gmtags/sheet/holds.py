"""What a saved card may hold: every value checked against the sheet the ruleset declares.

SPEC §11: "Saves are checked against the ruleset before anything is stored:
every value one the sheet can hold (an enum's values, a field's range and
length, a list's columns), a name of 1–100 characters with no control
characters …; otherwise 422 with every problem and its path." Play reads a
stored value loosely (`gmtags.sheet.values.read_value`: a number clamped, an
enum value the sheet no longer offers read as its default, text cut), so a
value the sheet cannot hold would be stored and shown as written while every
check read something else; `card_problems_for` refuses it before it is stored,
and SPEC §8 says the same of a sheet command ("a sheet command's value that
the sheet cannot hold is refused … never stored").

`card_problems_for(ruleset, card, party=…)` lists every problem, each at its
path under `where` (`card.fields.mood: "hot" is not one of cold, warm`), the
JSON shape a snapshot holds included (`gmtags.state.snapshot.card_problems`).
What each section may hold, by the sheet's declarations (002, "La ficha";
SCHEMA-NOTES §6 and §13):
- `abilities`: a declared ability that is not computed (004, 1.156: "El
  creador nunca fija una"), a whole number within its `min`..`max`;
- `skills` and `saves`: a declared skill (save), its tier (the short form or
  `{"tier", "bonus"}`) one of `resolution.proficiencyTiers`, its `bonus` a
  number within `bonusRange`; `bonuses`: a declared skill or save, a number
  within `bonusRange`;
- `fields`: a declared field (not one the party reads from its members),
  a value its shape holds (`number`: within `min`..`max`, whole when
  `integer`; `text`, `longtext`, `dice`: text of at most its length; `enum`:
  one of its values; `boolean`: true or false); null is a field left blank;
- `lists`: a declared list of at most `maxItems` rows, each row's cells
  declared columns holding what the column's shape holds (null an empty
  cell), never a computed (`sum`) column; a key beginning with `_` is a row
  mark (`_catalog`, `_pick`, `_row`: SCHEMA-NOTES §1, "It can never clash with
  a column id"), kept as written.
A party sheet (`party=True`) holds the party's `fields` and `lists`, and none of a
character's `abilities`, `skills`, `saves`, `bonuses` or `items`.

Decisions where SPEC and the seeds are silent:
- A key the sheet does not declare (a field, an ability, a list, a column) is
  refused, not kept: it is no value the sheet can hold, play never reads it,
  and every card the builder gives holds declared keys only. The rest of a
  card (the builder record, keys a front end added) is kept, as SPEC §4 keeps
  unknown keys: only the sections the sheet declares are checked.
- A tier is any of the resolution's proficiency tiers, not only the ones
  `skillTiers`/`saveTiers` list: those are what the editor offers (SCHEMA-NOTES
  §6), and play reads every tier (a builder grant may train at another).
- One-line text (`text`, `dice`) holds no control character or line break;
  `longtext` holds line breaks and tabs but no other control character; no
  text holds a lone UTF-16 surrogate half (it is no text; SPEC §8).
- An ability score is a whole number: its `min`, `max` and `default` are.
- The values a game's layers remove from an enum are still the sheet's (a
  card holding one reads the layer's default in that game: SPEC §4), so the
  check is against the ruleset as given; pass the ruleset the card is built
  with.
- `picks` and `items` are held to their JSON shape only: an item `ref` naming
  no entry is kept and contributes nothing (SPEC §4), and a pick may name an
  entry a layer hides or a lender no longer has.
- Live values (pools, tracks, states) are not part of a card: they live in
  `rulesetLive`, which a save does not write.

`name_problems(name)` holds a character's name to SPEC §11: 1–100 characters
once trimmed, no control character (Unicode category Cc, and the line and
paragraph separators U+2028/U+2029), no lone surrogate half, and at least one
letter or digit (a name normalising to nothing is one no `who=` can name:
SPEC §4). Format characters (Cf) are allowed, since names need them (the
zero-width joiner of an emoji family, the zero-width non-joiner of Persian,
left-to-right and right-to-left marks), except the bidirectional embeddings,
overrides and isolates (U+202A–U+202E, U+2066–U+2069), which reorder the text
after them wherever the name is shown.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from gmtags.errors import Problem
from gmtags.jsonfile import LONE_SURROGATE, dumps, text_problem
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.sheet import (
    Ability,
    EnumColumn,
    EnumField,
    FieldLike,
    LongTextColumn,
    LongTextField,
    NumberColumn,
    SheetList,
)
from gmtags.state.names import normalize_name
from gmtags.state.snapshot import card_problems
from gmtags.text import has_control

NAME_LENGTH = 100
"""SPEC §11: a character's name is 1–100 characters."""

_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_LONG_TEXT_BREAKS = str.maketrans("", "", "\n\r\t")
_SHOWN = 40
"""The most characters of a value a message repeats."""

Problems = Iterator[Problem]


def shown(value: Any) -> str:
    """A value as JSON spells it, cut to `_SHOWN` characters (for a message)."""
    if isinstance(value, str) and len(value) > _SHOWN:
        return dumps(value[: _SHOWN - 3] + "...")
    try:
        text = dumps(value)
    except ValueError:  # a number JSON cannot spell (inf, nan): say it as Python does
        text = repr(value)
    return text if len(text) <= _SHOWN else f"{text[: _SHOWN - 3]}..."


def _listed(values: list[str], most: int = 12) -> str:
    head = ", ".join(values[:most])
    return head if len(values) <= most else f"{head}, … ({len(values)} in all)"


# ---------------------------------------------------------------------------
# One value against its shape (002, "La ficha": number, text, longtext, boolean, enum, dice)


def _number_problem(value: Any, low: float, high: float, integer: bool) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return f"{shown(value)} is not a number"
    if integer and value != int(value):
        return f"{shown(value)} is not a whole number"
    if not low <= value <= high:
        return f"{shown(value)} is outside {_number(low)}..{_number(high)}"
    return None


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def _text_problem(value: str, *, lines: bool) -> str | None:
    """What text that fits its shape still cannot be: a lone surrogate half, or a control
    character (`lines`: line breaks and tabs allowed, as in `longtext`)."""
    if text_problem(value) is not None:
        return LONE_SURROGATE
    if has_control(value.translate(_LONG_TEXT_BREAKS) if lines else value):
        breaks = "" if lines else " or line break"
        return f"{shown(value)} holds a control character{breaks}"
    return None


def value_problem(shape: FieldLike, value: Any) -> str | None:
    """Why a field or a list cell of `shape` cannot hold `value`, or None when it can (null is
    a blank field, an empty cell).

    The shape's own rule decides (`holds`, `gmtags.ruleset.sheet`: the rule a sheet command's
    value is held to); text is further held to be text (no lone surrogate half, no control
    character: `_text_problem`)."""
    if value is None:
        return None
    reason = shape.holds(value)
    if reason is not None:
        if isinstance(shape, EnumField | EnumColumn):  # the values it offers, for the author
            return f"{shown(value)} is not one of {_listed(shape.values)}"
        long = isinstance(value, str) and len(value) > _SHOWN
        return f"{f'{len(value)} characters' if long else shown(value)} is {reason}"
    if isinstance(value, str):
        return _text_problem(value, lines=isinstance(shape, LongTextField | LongTextColumn))
    return None


# ---------------------------------------------------------------------------
# The card's sections, one checker each (what each may hold: module doc)


class _Sheet:
    """What a card of this ruleset may hold: a character's sheet, or the party's."""

    def __init__(self, ruleset: Ruleset, party: bool) -> None:
        sheet = ruleset.sheet
        declared = ruleset.party if party else sheet
        self.fields = {f.id: f for f in declared.fields} if declared is not None else {}
        self.lists = {lst.id: lst for lst in declared.lists} if declared is not None else {}
        self.members = (
            {m.field for m in ruleset.party.from_members}
            if party and ruleset.party is not None
            else set()
        )
        self.abilities: dict[str, Ability] = {} if party else {a.id: a for a in sheet.abilities}
        self.skills = set() if party else {s.id for s in sheet.skills}
        self.saves = set() if party else {s.id for s in sheet.saves}
        self.tiers = [t.id for t in ruleset.resolution_common.proficiency_tiers]
        self.bonus_range = sheet.bonus_range


def _abilities(sheet: _Sheet, part: Any, at: str) -> Problems:
    for name, score in _items(part):
        ability = sheet.abilities.get(name)
        here = f"{at}.{name}"
        if ability is None:
            yield Problem(here, f"the sheet has no ability '{name}'")
        elif ability.value is not None:
            yield Problem(here, f"'{name}' is computed from the sheet, never stored")
        else:
            problem = _number_problem(score, ability.min, ability.max, integer=True)
            if problem is not None:
                yield Problem(here, problem)


def _bonus(sheet: _Sheet, value: Any, at: str) -> Problems:
    limits = sheet.bonus_range
    problem = _number_problem(value, limits.min, limits.max, integer=False)
    if problem is not None:
        yield Problem(at, f"{problem} (bonusRange)" if "outside" in problem else problem)


def _trained(kind: str) -> Callable[[_Sheet, Any, str], Problems]:
    """The checker of `skills` or `saves`: declared entries at one of the tiers."""

    def check(sheet: _Sheet, part: Any, at: str) -> Problems:
        declared = sheet.skills if kind == "skill" else sheet.saves
        for name, entry in _items(part):
            here = f"{at}.{name}"
            if name not in declared:
                yield Problem(here, f"the sheet has no {kind} '{name}'")
                continue
            tier = entry.get("tier") if isinstance(entry, dict) else entry
            where = f"{here}.tier" if isinstance(entry, dict) else here
            if not isinstance(tier, str) or tier not in sheet.tiers:
                yield Problem(where, f"{shown(tier)} is not one of {_listed(sheet.tiers)}")
            if isinstance(entry, dict) and "bonus" in entry:
                yield from _bonus(sheet, entry["bonus"], f"{here}.bonus")
            if isinstance(entry, dict):
                for key in entry:
                    if key not in ("tier", "bonus"):
                        yield Problem(f"{here}.{key}", f"a {kind} holds a tier and a bonus")

    return check


def _bonuses(sheet: _Sheet, part: Any, at: str) -> Problems:
    for name, value in _items(part):
        if name not in sheet.skills and name not in sheet.saves:
            yield Problem(f"{at}.{name}", f"the sheet has no skill or save '{name}'")
        else:
            yield from _bonus(sheet, value, f"{at}.{name}")


def _fields(sheet: _Sheet, part: Any, at: str) -> Problems:
    for name, value in _items(part):
        shape = sheet.fields.get(name)
        here = f"{at}.{name}"
        if shape is None:
            yield Problem(here, f"the sheet has no field '{name}'")
        elif name in sheet.members:
            yield Problem(here, f"'{name}' is read from the party's members, never stored")
        else:
            problem = value_problem(shape, value)
            if problem is not None:
                yield Problem(here, problem)


def _lists(sheet: _Sheet, part: Any, at: str) -> Problems:
    for name, rows in _items(part):
        declared = sheet.lists.get(name)
        here = f"{at}.{name}"
        if declared is None:
            yield Problem(here, f"the sheet has no list '{name}'")
            continue
        if not isinstance(rows, list):
            yield Problem(here, f"{shown(rows)} is not a list of rows")
            continue
        if len(rows) > declared.max_items:
            yield Problem(here, f"{len(rows)} rows, more than its {declared.max_items}")
        for index, row in enumerate(rows):
            if isinstance(row, dict):
                yield from _row(declared, row, f"{here}.{index}")
            else:
                yield Problem(f"{here}.{index}", f"{shown(row)} is not a row (a JSON object)")


def _row(declared: SheetList, row: dict[str, Any], at: str) -> Problems:
    for key, value in row.items():
        here = f"{at}.{key}"
        if key.startswith("_"):
            continue  # a row mark (module doc)
        column = declared.column(key)
        if column is None:
            yield Problem(here, f"list '{declared.id}' has no column '{key}'")
        elif isinstance(column, NumberColumn) and column.sum is not None:
            yield Problem(here, f"'{key}' is computed from the row, never stored")
        else:
            problem = value_problem(column, value)
            if problem is not None:
                yield Problem(here, problem)


def _items(part: Any) -> list[tuple[str, Any]]:
    """A section's entries (none when it is no object: its JSON shape is reported)."""
    return [(str(key), value) for key, value in part.items()] if isinstance(part, dict) else []


SECTIONS: dict[str, Callable[[_Sheet, Any, str], Problems]] = {
    "abilities": _abilities,
    "skills": _trained("skill"),
    "saves": _trained("save"),
    "bonuses": _bonuses,
    "fields": _fields,
    "lists": _lists,
}
"""The card's sections checked against the sheet, in the order they are reported."""
PARTY_SECTIONS = ("fields", "lists")
"""002: a party sheet holds fields and lists (`gmtags.builder.party`)."""
CHARACTER_ONLY = ("abilities", "skills", "saves", "bonuses", "items")
"""A character card's sections a party sheet never holds (`gmtags.builder.party.as_sheet`)."""


def card_problems_for(
    ruleset: Ruleset, card: Mapping[str, Any] | Any, *, party: bool = False, where: str = "card"
) -> list[Problem]:
    """Every problem that keeps `card` from being stored as a card of `ruleset` (a party
    sheet with `party`), each at its path under `where`; empty when it may be (module doc).

    Pure, and total: a value of any JSON type is a problem, never an exception."""
    if party and ruleset.party is None:
        return [Problem(where, "this ruleset has no party sheet")]
    data = dict(card) if isinstance(card, Mapping) else card
    checked = PARTY_SECTIONS if party else tuple(SECTIONS)
    # The JSON shape as a snapshot holds it, but for the sections checked here (whose
    # messages say more than a type: "is not one of cold, warm").
    found = [
        problem
        for problem in card_problems(data, where, party)
        if not any(problem.path.startswith(f"{where}.{name}") for name in checked)
    ]
    if not isinstance(data, dict):
        return found
    sheet = _Sheet(ruleset, party)
    if party:
        found += [
            Problem(f"{where}.{name}", f"a party sheet holds fields and lists, not {name}")
            for name in CHARACTER_ONLY
            if name in data
        ]
    for name in checked:
        part = data.get(name)
        if part is None:
            continue
        if not isinstance(part, dict):
            found.append(Problem(f"{where}.{name}", f"{shown(part)} is not a JSON object"))
            continue
        found += SECTIONS[name](sheet, part, f"{where}.{name}")
    return found


def name_problems(name: Any, where: str = "name") -> list[Problem]:
    """Every problem that keeps `name` from being a character's name (module doc); the name
    is stored trimmed (`name.strip()`)."""
    if not isinstance(name, str):
        return [Problem(where, f"{shown(name)} is not text")]
    trimmed = name.strip()
    if not trimmed:
        return [Problem(where, "a name is 1 to 100 characters, not blank")]
    found: list[Problem] = []
    if len(trimmed) > NAME_LENGTH:
        found.append(Problem(where, f"{len(trimmed)} characters, more than {NAME_LENGTH}"))
    if has_control(trimmed):
        found.append(Problem(where, "holds a control character or a line break"))
    if text_problem(trimmed) is not None:
        found.append(Problem(where, LONE_SURROGATE))
    if not _BIDI_CONTROLS.isdisjoint(trimmed):
        found.append(Problem(where, "holds a bidirectional control (U+202A–U+202E, U+2066–U+2069)"))
    if not normalize_name(trimmed):
        found.append(Problem(where, "has no letter or digit, so no who= could name it"))
    return found


__all__ = ["NAME_LENGTH", "card_problems_for", "name_problems", "value_problem"]
