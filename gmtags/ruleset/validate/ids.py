"""SCHEMA-NOTES §1: ids are unique within their list, and shared ids do not collide."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from gmtags.errors import Problem
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.sheet import SheetList
from gmtags.ruleset.validate.index import SheetIndex


def duplicates(items: Sequence[Any], path: str, what: str) -> list[Problem]:
    seen: set[str] = set()
    problems = []
    for position, item in enumerate(items):
        if item.id in seen:
            problems.append(Problem(f"{path}.{position}.id", f"{what} id '{item.id}' repeats"))
        seen.add(item.id)
    return problems


def _shared(items: Sequence[Any], path: str, others: Iterable[Any], what: str) -> list[Problem]:
    taken = {item.id for item in others}
    return [
        Problem(f"{path}.{position}.id", f"id '{item.id}' is already a {what}")
        for position, item in enumerate(items)
        if item.id in taken
    ]


def list_ids(sheet_list: SheetList, path: str) -> list[Problem]:
    """A list's column and check ids, each unique within the list."""
    return [
        *duplicates(sheet_list.columns, f"{path}.columns", "column"),
        *duplicates(sheet_list.checks or [], f"{path}.checks", "check"),
    ]


def check_duplicate_ids(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """SCHEMA-NOTES §1: ids are unique within each list, and across three pairs of lists.

    Sections, abilities, skills, saves, fields, derived values, lists, pools,
    tracks, live text, conditions, states, proficiency tiers, rests and each
    list's columns; a save may not share an id with a skill, a pool with a
    track, a derived value with a field. Each list's row checks and each wound
    track's kinds are named by id too. The party sheet's fields, pools and
    lists share one id space (002, "Ficha de grupo…").
    """
    sheet, live = ruleset.sheet, ruleset.sheet.live
    problems = [
        *duplicates(sheet.sections, "sheet.sections", "section"),
        *duplicates(sheet.abilities, "sheet.abilities", "ability"),
        *duplicates(sheet.skills, "sheet.skills", "skill"),
        *duplicates(sheet.saves, "sheet.saves", "save"),
        *duplicates(sheet.fields, "sheet.fields", "field"),
        *duplicates(sheet.derived, "sheet.derived", "derived"),
        *duplicates(sheet.lists, "sheet.lists", "list"),
        *duplicates(live.pools, "sheet.live.pools", "pool"),
        *duplicates(live.tracks, "sheet.live.tracks", "track"),
        *duplicates(live.text, "sheet.live.text", "live text"),
        *duplicates(live.conditions, "sheet.live.conditions", "condition"),
        *duplicates(live.states, "sheet.live.states", "state"),
        *duplicates(
            ruleset.resolution_common.proficiency_tiers, "resolution.proficiencyTiers", "tier"
        ),
        *duplicates(ruleset.rests, "rests", "rest"),
        *_shared(sheet.saves, "sheet.saves", sheet.skills, "skill"),
        *_shared(live.tracks, "sheet.live.tracks", live.pools, "pool"),
        *_shared(sheet.derived, "sheet.derived", sheet.fields, "field"),
    ]
    for position, sheet_list in enumerate(sheet.lists):
        problems += list_ids(sheet_list, f"sheet.lists.{position}")
    for position, track in enumerate(live.tracks):
        problems += duplicates(track.kinds or [], f"sheet.live.tracks.{position}.kinds", "kind")
    party = ruleset.party
    if party is not None:
        problems += duplicates(party.fields, "party.fields", "field")
        problems += duplicates(party.pools, "party.pools", "pool")
        problems += duplicates(party.lists, "party.lists", "list")
        problems += _shared(party.pools, "party.pools", party.fields, "party field")
        problems += _shared(
            party.lists, "party.lists", [*party.fields, *party.pools], "party field or pool"
        )
        for position, sheet_list in enumerate(party.lists):
            problems += list_ids(sheet_list, f"party.lists.{position}")
    return problems
