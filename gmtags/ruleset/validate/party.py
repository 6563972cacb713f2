"""002, "Ficha de grupo…" and "Texto del Game Master": the party sheet and `gm.sheetSummary`."""

from __future__ import annotations

from gmtags.errors import Problem
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.party import SheetSummary
from gmtags.ruleset.sheet import (
    NumberField,
)
from gmtags.ruleset.validate.index import BOOLEAN, ENUM, TEXT, SheetIndex
from gmtags.ruleset.validate.live import pool_problems
from gmtags.ruleset.validate.sheet import (
    advancement_problems,
    expect_column,
    field_problems,
    list_problems,
)


def check_party(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """002, "Ficha de grupo…" and "Creación compartida del grupo".

    Party formulas read only party values (a pool's max a constant or a party
    number field; hideWhen a party field); advancement names party number,
    text or longtext fields; the summary picks party fields, no derived values
    and party lists; fromMembers fills party number fields from a count of the
    members or the sum of a character number field.
    """
    party = ruleset.party
    if party is None:
        return []
    character, index = index, SheetIndex.of_party(ruleset, party, index.broken)
    problems = [
        *field_problems(party.fields, "party.fields", index),
        *pool_problems(party.pools, "party.pools", index),
        *list_problems(party.lists, "party.lists", index),
    ]
    if party.advancement is not None:
        problems += advancement_problems(party.advancement.fields, "party.advancement", index)
    if party.summary is not None:
        problems += _summary(party.summary, index, "party.summary")
    seen: set[str] = set()
    for position, member in enumerate(party.from_members):
        at = f"party.fromMembers.{position}"
        if not isinstance(index.fields.get(member.field), NumberField):
            problems.append(Problem(f"{at}.field", f"'{member.field}' is not a party number field"))
        elif member.field in seen:
            problems.append(Problem(f"{at}.field", f"'{member.field}' is read from members twice"))
        seen.add(member.field)
        numbers = character.parsed("sheet.fields")
        if (
            member.sum is not None
            and numbers
            and not isinstance(character.fields.get(member.sum), NumberField)
        ):
            problems.append(Problem(f"{at}.sum", f"'{member.sum}' is not a character number field"))
    return problems


def _summary(summary: SheetSummary, index: SheetIndex, base: str) -> list[Problem]:
    """The references of a sheet summary (`gm.sheetSummary`, or `party.summary` on the party)."""
    whose = "party " if index.party else ""
    problems: list[Problem] = []
    for position, name in enumerate(summary.fields):
        if name not in index.fields:
            problems.append(Problem(f"{base}.fields.{position}", f"names no {whose}field '{name}'"))
    if index.party and summary.derived:
        problems.append(Problem(f"{base}.derived", "a party sheet has no derived values"))
    elif not index.party:
        for position, name in enumerate(summary.derived):
            if name not in index.derived:
                problems.append(
                    Problem(f"{base}.derived.{position}", f"names no derived value '{name}'")
                )
    for position, shown in enumerate(summary.lists):
        at = f"{base}.lists.{position}"
        sheet_list = index.lists.get(shown.list)
        if sheet_list is None:
            problems.append(Problem(f"{at}.list", f"names no {whose}list '{shown.list}'"))
            continue
        problems += expect_column(
            sheet_list,
            shown.name_column,
            (*TEXT, *ENUM),
            "a text or enum column",
            f"{at}.nameColumn",
        )
        for item, column in enumerate(shown.columns or []):
            if sheet_list.column(column) is None:
                problems.append(Problem(f"{at}.columns.{item}", f"names no column '{column}'"))
        if shown.group_by is not None and sheet_list.column(shown.group_by) is None:
            problems.append(Problem(f"{at}.groupBy", f"names no column '{shown.group_by}'"))
        problems += expect_column(
            sheet_list, shown.only_when, BOOLEAN, "a boolean column", f"{at}.onlyWhen"
        )
    return problems


def check_gm_summary(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """002, "Texto del Game Master": `gm.sheetSummary` names entries the sheet has."""
    return _summary(ruleset.gm_text.sheet_summary, index, "gm.sheetSummary")
