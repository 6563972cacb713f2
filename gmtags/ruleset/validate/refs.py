"""Value references (002, "Todo lector de números…"): what each reads exists, may be read there."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from gmtags.errors import Problem
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.sheet import (
    BooleanColumn,
    EnumField,
    HideWhen,
    NumberColumn,
    NumberField,
)
from gmtags.ruleset.validate.index import Node, SheetIndex, describe, reads_modifier

_PARTS: Mapping[str, str] = MappingProxyType(
    {
        "field": "sheet.fields",
        "abilityModFromField": "sheet.fields",
        "derived": "sheet.derived",
        "abilityScore": "sheet.abilities",
        "abilityMod": "sheet.abilities",
        "skillMod": "sheet.skills",
        "saveMod": "sheet.saves",
        "livePool": "sheet.live",
        "liveTrack": "sheet.live",
        "listSum": "sheet.lists",
        "itemStat": "items",
    }
)
"""The part of the file each kind of reference names something in."""


def check_ref(ref: RulesetValueRef, path: str, index: SheetIndex) -> list[Problem]:
    """Every problem with one value reference: unknown ids and wrong kinds of field.

    002, "Todo lector de números…": `field` names a number field,
    `abilityModFromField` an enum field, `listSum.column` a number column and
    `onlyWhen` a boolean column; `read: "penalty"` needs a wound track;
    `itemStat` needs an `items` block. On the party sheet (002, "Ficha de
    grupo…") a formula reads only a constant or a party number field. A reference
    into a part of the file with shape problems (`_PARTS`) is not checked: what it
    names may be there.
    """
    key, target = ref.key, ref.target
    at = f"{path}.{key}"
    if index.party and key not in ("const", "field"):
        return [Problem(at, "a party formula reads only a constant or a party number field")]
    if not index.party and not index.parsed(_PARTS.get(key, "")):
        return []
    if key == "field":
        found = index.fields.get(target or "")
        where = "party field" if index.party else "field"
        if found is None:
            return [Problem(at, f"names no {where} '{target}'")]
        if not isinstance(found, NumberField):
            return [Problem(at, f"{where} '{target}' is not a number field")]
    elif key == "derived" and target not in index.derived:
        return [Problem(at, f"names no derived value '{target}'")]
    elif key in ("abilityScore", "abilityMod") and target not in index.abilities:
        return [Problem(at, f"names no ability '{target}'")]
    elif key == "abilityModFromField":
        found = index.fields.get(target or "")
        if not isinstance(found, EnumField):
            return [Problem(at, f"'{target}' is not an enum field")]
    elif key == "skillMod" and target not in index.skills:
        return [Problem(at, f"names no skill '{target}'")]
    elif key == "saveMod" and target not in index.saves:
        return [Problem(at, f"names no save '{target}'")]
    elif key == "livePool" and target not in index.pools:
        return [Problem(at, f"names no live pool '{target}'")]
    elif key == "liveTrack":
        track = index.tracks.get(target or "")
        if track is None:
            return [Problem(at, f"names no live track '{target}'")]
        if ref.track_read == "penalty" and not track.is_wound:
            return [Problem(f"{path}.read", "read: penalty needs a wound track")]
    elif key == "listSum":
        return _check_list_sum(ref, at, index)
    elif key == "itemStat":
        return _check_item_stat(ref, at, index)
    return []


def _check_list_sum(ref: RulesetValueRef, at: str, index: SheetIndex) -> list[Problem]:
    total = ref.list_sum
    assert total is not None
    sheet_list = index.lists.get(total.list)
    if sheet_list is None:
        return [Problem(f"{at}.list", f"names no list '{total.list}'")]
    problems: list[Problem] = []
    if total.column is not None and not isinstance(sheet_list.column(total.column), NumberColumn):
        problems.append(Problem(f"{at}.column", f"'{total.column}' is not a number column"))
    if total.only_when is not None and not isinstance(
        sheet_list.column(total.only_when), BooleanColumn
    ):
        problems.append(Problem(f"{at}.onlyWhen", f"'{total.only_when}' is not a boolean column"))
    if total.where is not None:
        column = sheet_list.column(total.where.column)
        if column is None:
            problems.append(
                Problem(f"{at}.where.column", f"names no column '{total.where.column}'")
            )
        else:
            reason = column.holds(total.where.equals)
            if reason is not None:
                problems.append(
                    Problem(
                        f"{at}.where.equals",
                        f"column '{column.id}' can never hold {total.where.equals!r} ({reason})",
                    )
                )
    return problems


def ids(raw: Any, key: str) -> set[str] | None:
    """The ids of the objects listed under `raw[key]` (`items.stats`, `resolution.stances`),
    or None when there is no such list to check against.
    """
    entries = raw.get(key) if isinstance(raw, dict) else None
    if not isinstance(entries, list):
        return None
    return {
        entry["id"]
        for entry in entries
        if isinstance(entry, dict) and isinstance(entry.get("id"), str)  # a raw list: any JSON
    }


def _check_item_stat(ref: RulesetValueRef, at: str, index: SheetIndex) -> list[Problem]:
    stat = ref.item_stat
    assert stat is not None
    items = index.ruleset.items
    if items is None:
        return [Problem(at, "itemStat needs an items block")]
    problems: list[Problem] = []
    for key, listed, value in (
        ("stat", "stats", stat.stat),
        ("slot", "slots", stat.slot),
        ("category", "categories", stat.category),
        ("tag", "tags", stat.tag),
    ):
        known = ids(items, listed)
        if value is not None and known is not None and value not in known:
            problems.append(Problem(f"{at}.{key}", f"items declares no {key} '{value}'"))
    return problems


def no_live(ref: RulesetValueRef, path: str, index: SheetIndex, what: str) -> list[Problem]:
    """002: nothing worked out before live state exists may read it, even through others."""
    chain = index.trace([ref], lambda node: node[0] == "live")
    if chain is None:
        return []
    return [Problem(path, f"{what} cannot read live state; it does through {describe(chain)}")]


def _before_skills(node: Node) -> bool:
    """What is worked out before skills: derived values and computed abilities."""
    return node[0] in ("derived", "ability")


def no_skill_mods(ref: RulesetValueRef, path: str, index: SheetIndex, what: str) -> list[Problem]:
    """002, "Una habilidad o salvación puede llevar un cap": no skill or save modifier.

    Neither directly, nor in the derived value read, nor in any derived value
    declared before that one: the sheet is worked out once, top to bottom.
    """
    chain = index.trace([ref], reads_modifier, _before_skills)
    if chain is not None:
        return [
            Problem(
                path,
                f"{what} cannot read a skill or save modifier; it does through {describe(chain)}",
            )
        ]
    first = index.first_modifier_reader
    if first is None:
        return []
    last = max(
        (
            index.derived[name][0]
            for kind, name in _reachable([ref], index, _before_skills)
            if kind == "derived" and name in index.derived
        ),
        default=-1,
    )
    if last < first[0]:
        return []
    derived = index.ruleset.sheet.derived
    return [
        Problem(
            path,
            f"{what} reads derived '{derived[last].id}', and derived "
            f"'{derived[first[0]].id}' declared at or above it reads a skill or "
            f"save modifier ({describe(first[1])}); the sheet is worked out once, "
            "top to bottom",
        )
    ]


def _reachable(
    refs: Iterable[RulesetValueRef], index: SheetIndex, follow: Callable[[Node], bool]
) -> set[Node]:
    """Every node reachable from `refs`, following the nodes `follow` allows."""
    found: set[Node] = set()

    def collect(node: Node) -> bool:
        found.add(node)
        return False

    index.trace(refs, collect, follow)
    return found


def hide_when(
    hide: HideWhen | None, path: str, index: SheetIndex, owner: str | None = None
) -> list[Problem]:
    """002, "hideWhen oculta un campo": the field exists and every value is one it can hold."""
    if hide is None or not (index.party or index.parsed("sheet.fields")):
        return []
    at = f"{path}.hideWhen"
    target = index.fields.get(hide.field)
    if target is None:
        where = "party field" if index.party else "field"
        return [Problem(f"{at}.field", f"names no {where} '{hide.field}'")]
    if hide.field == owner:
        return [Problem(f"{at}.field", "a field cannot hide by its own value")]
    problems = []
    for below, value in hide.compared():
        reason = target.holds(value)
        if reason is not None:
            problems.append(
                Problem(
                    f"{at}.{below}",
                    f"field '{hide.field}' can never hold {value!r} ({reason}), "
                    "so the rule would never match",
                )
            )
    return problems
