"""Import validation across the sheet half of a ruleset: every problem, with its JSON path.

The models check shapes; the passes here check what needs the whole file: ids
that repeat (SCHEMA-NOTES §1), references to things that do not exist, live
reads where no live state exists yet, derived order, wound-track rules,
untrained rules that could never change a roll, rests, the party sheet, and
what the resolution (000) names elsewhere in the file: the sheet, catalog
`mechanics.check`, layer ladders and `combat`.
Each pass is a `Check` appended to `load.CHECKS`, in the order of `PASSES`;
all of them run and every problem is reported, never only the first.

Seed sections named below are from 002 unless said otherwise; the resolution
passes at the end implement 000.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from pydantic import ValidationError

from gmtags.errors import Problem
from gmtags.ruleset.load import CHECKS, Check
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.party import Party, SheetSummary
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.resolution import (
    CHECK_WORDS,
    Found,
    MechanicsCheck,
    ladder_adapter,
)
from gmtags.ruleset.rests import RestoreStep
from gmtags.ruleset.sheet import (
    Ability,
    BooleanColumn,
    BooleanField,
    CheckEntry,
    ContextualCheck,
    ContextualCost,
    DerivedValue,
    DiceColumn,
    DiceField,
    EntryContextual,
    EnumColumn,
    EnumField,
    EnumTableDerived,
    FieldLike,
    HideWhen,
    LivePool,
    LiveState,
    LiveTrack,
    LongTextField,
    NumberColumn,
    NumberField,
    RollColumn,
    SheetList,
    TextColumn,
    TextField,
)

Node = tuple[str, str]
"""A value in the sheet's dependency graph: (kind, id), the kind being derived, ability,
skill, save or live (whose id then says which live read it is)."""

_NUMBER = (NumberField, NumberColumn)
_TEXT = (TextField, TextColumn)
_ENUM = (EnumField, EnumColumn)
_BOOLEAN = (BooleanField, BooleanColumn)
_ADVANCEABLE = (NumberField, TextField, LongTextField)
_FIELDS = (NumberField, TextField, LongTextField, BooleanField, EnumField, DiceField)
"""Fields, as opposed to list columns (which have no section or hideWhen)."""


def _first_by_id(items: Iterable[Any]) -> dict[str, Any]:
    """Items by id; the first of a repeated id wins (the repeat is its own problem)."""
    found: dict[str, Any] = {}
    for item in items:
        found.setdefault(item.id, item)
    return found


@dataclass
class SheetIndex:
    """Look-ups over one sheet, a character's or the party's, and its dependency graph."""

    ruleset: Ruleset
    party: bool = False
    fields: dict[str, FieldLike] = field(default_factory=dict)
    derived: dict[str, tuple[int, DerivedValue]] = field(default_factory=dict)
    abilities: dict[str, Ability] = field(default_factory=dict)
    skills: dict[str, CheckEntry] = field(default_factory=dict)
    saves: dict[str, CheckEntry] = field(default_factory=dict)
    lists: dict[str, SheetList] = field(default_factory=dict)
    pools: dict[str, LivePool] = field(default_factory=dict)
    groups: set[str] = field(default_factory=set)
    tracks: dict[str, LiveTrack] = field(default_factory=dict)
    states: dict[str, LiveState] = field(default_factory=dict)
    _edges: dict[Node, list[Node]] = field(default_factory=dict, repr=False)

    @classmethod
    def of_sheet(cls, ruleset: Ruleset) -> SheetIndex:
        """The character sheet's index."""
        sheet = ruleset.sheet
        derived: dict[str, tuple[int, DerivedValue]] = {}
        for index, value in enumerate(sheet.derived):
            derived.setdefault(value.id, (index, value))
        return cls(
            ruleset=ruleset,
            fields=_first_by_id(sheet.fields),
            derived=derived,
            abilities=_first_by_id(sheet.abilities),
            skills=_first_by_id(sheet.skills),
            saves=_first_by_id(sheet.saves),
            lists=_first_by_id(sheet.lists),
            pools=_first_by_id(sheet.live.pools),
            groups={pool.group for pool in sheet.live.pools if pool.group is not None},
            tracks=_first_by_id(sheet.live.tracks),
            states=_first_by_id(sheet.live.states),
        )

    @classmethod
    def of_party(cls, ruleset: Ruleset, party: Party) -> SheetIndex:
        """The party sheet's index: its own fields, pools and lists, nothing of a character's."""
        return cls(
            ruleset=ruleset,
            party=True,
            fields=_first_by_id(party.fields),
            lists=_first_by_id(party.lists),
            pools=_first_by_id(party.pools),
            groups={pool.group for pool in party.pools if pool.group is not None},
        )

    # -- the dependency graph ------------------------------------------------

    def ref_nodes(self, ref: RulesetValueRef) -> list[Node]:
        """The graph nodes one reference reads directly."""
        key, target = ref.key, ref.target or ""
        if key == "derived":
            return [("derived", target)]
        if key in ("abilityScore", "abilityMod"):
            return [("ability", target)]
        if key == "abilityModFromField":
            enum = self.fields.get(target)
            if isinstance(enum, EnumField):
                return [("ability", value) for value in enum.values if value in self.abilities]
            return []
        if key == "skillMod":
            return [("skill", target)]
        if key == "saveMod":
            return [("save", target)]
        if key in ("livePool", "liveTrack"):
            return [("live", f"{key} '{target}'")]
        if key == "itemStat":
            return [("live", "itemStat")]
        return []

    def edges(self, node: Node) -> list[Node]:
        """What a node reads in turn (worked out once per node and remembered)."""
        known = self._edges.get(node)
        if known is None:
            known = self._edges[node] = self._read_by(node)
        return known

    def _read_by(self, node: Node) -> list[Node]:
        kind, name = node
        refs: list[RulesetValueRef] = []
        extra: list[Node] = []
        if kind == "derived" and name in self.derived:
            value = self.derived[name][1]
            refs = [ref for _, ref in value.refs()]
            if isinstance(value, EnumTableDerived) and value.from_.live_state is not None:
                extra.append(("live", f"liveState '{value.from_.live_state}'"))
        elif kind == "ability" and name in self.abilities:
            refs = list(self.abilities[name].value or [])
        elif kind in ("skill", "save"):
            entry = (self.skills if kind == "skill" else self.saves).get(name)
            if entry is not None:
                if entry.ability is not None:
                    extra.append(("ability", entry.ability))
                if entry.cap is not None:
                    refs.append(entry.cap)
                proficiency = self.ruleset.resolution_common.proficiency
                if proficiency is not None:
                    refs.append(proficiency.bonus)
        return [node for ref in refs for node in self.ref_nodes(ref)] + extra

    def trace(
        self,
        refs: Iterable[RulesetValueRef],
        goal: Callable[[Node], bool],
        follow: Callable[[Node], bool] = lambda _node: True,
    ) -> list[Node] | None:
        """The first path from `refs` to a node meeting `goal`, following nodes `follow` allows.

        Each node is visited once (parents are remembered, not whole paths), so
        a cycle or a wide graph in a bad file costs no more than its size.
        """
        parents: dict[Node, Node | None] = {}
        stack: list[Node] = []
        for ref in refs:
            for node in self.ref_nodes(ref):
                if node not in parents:
                    parents[node] = None
                    stack.append(node)
        stack.reverse()
        while stack:
            node = stack.pop()
            if goal(node):
                path = [node]
                while (parent := parents[path[-1]]) is not None:
                    path.append(parent)
                return path[::-1]
            if not follow(node):
                continue
            for after in reversed(self.edges(node)):
                if after not in parents:
                    parents[after] = node
                    stack.append(after)
        return None

    @cached_property
    def first_modifier_reader(self) -> tuple[int, list[Node]] | None:
        """The first derived value that reads a skill or save modifier, with the chain.

        Derived values read only those above them, so whether any value up to
        position k reads a modifier is whether this one's position is ≤ k.
        """
        for position, value in enumerate(self.ruleset.sheet.derived):
            refs = [ref for _, ref in value.refs()]
            chain = self.trace(refs, _reads_modifier, self.is_computed)
            if chain is not None:
                return position, chain
        return None

    def is_computed(self, node: Node) -> bool:
        """True for an ability whose score is computed (004, 1.156)."""
        ability = self.abilities.get(node[1]) if node[0] == "ability" else None
        return ability is not None and ability.value is not None


def _describe(path: Sequence[Node]) -> str:
    return " → ".join(name if kind == "live" else f"{kind} '{name}'" for kind, name in path)


# ---------------------------------------------------------------------------
# References


def check_ref(ref: RulesetValueRef, path: str, index: SheetIndex) -> list[Problem]:
    """Every problem with one value reference: unknown ids and wrong kinds of field.

    002, "Todo lector de números…": `field` names a number field,
    `abilityModFromField` an enum field, `listSum.column` a number column and
    `onlyWhen` a boolean column; `read: "penalty"` needs a wound track;
    `itemStat` needs an `items` block. On the party sheet (002, "Ficha de
    grupo…") a formula reads only a constant or a party number field.
    """
    key, target = ref.key, ref.target
    at = f"{path}.{key}"
    if index.party and key not in ("const", "field"):
        return [Problem(at, "a party formula reads only a constant or a party number field")]
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


def _ids(raw: Any, key: str) -> set[str] | None:
    """The ids of the objects listed under `raw[key]` (`items.stats`, `resolution.stances`),
    or None when there is no such list to check against.
    """
    entries = raw.get(key) if isinstance(raw, dict) else None
    if not isinstance(entries, list):
        return None
    return {entry["id"] for entry in entries if isinstance(entry, dict) and "id" in entry}


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
        known = _ids(items, listed)
        if value is not None and known is not None and value not in known:
            problems.append(Problem(f"{at}.{key}", f"items declares no {key} '{value}'"))
    return problems


def _no_live(ref: RulesetValueRef, path: str, index: SheetIndex, what: str) -> list[Problem]:
    """002: nothing worked out before live state exists may read it, even through others."""
    chain = index.trace([ref], lambda node: node[0] == "live")
    if chain is None:
        return []
    return [Problem(path, f"{what} cannot read live state; it does through {_describe(chain)}")]


def _reads_modifier(node: Node) -> bool:
    return node[0] in ("skill", "save")


def _before_skills(node: Node) -> bool:
    """What is worked out before skills: derived values and computed abilities."""
    return node[0] in ("derived", "ability")


def _no_skill_mods(ref: RulesetValueRef, path: str, index: SheetIndex, what: str) -> list[Problem]:
    """002, "Una habilidad o salvación puede llevar un cap": no skill or save modifier.

    Neither directly, nor in the derived value read, nor in any derived value
    declared before that one: the sheet is worked out once, top to bottom.
    """
    chain = index.trace([ref], _reads_modifier, _before_skills)
    if chain is not None:
        return [
            Problem(
                path,
                f"{what} cannot read a skill or save modifier; it does through {_describe(chain)}",
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
            f"save modifier ({_describe(first[1])}); the sheet is worked out once, "
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


def _hide_when(
    hide: HideWhen | None, path: str, index: SheetIndex, owner: str | None = None
) -> list[Problem]:
    """002, "hideWhen oculta un campo": the field exists and every value is one it can hold."""
    if hide is None:
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


# ---------------------------------------------------------------------------
# Passes


def _duplicates(items: Sequence[Any], path: str, what: str) -> list[Problem]:
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


def check_duplicate_ids(ruleset: Ruleset) -> list[Problem]:
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
        *_duplicates(sheet.sections, "sheet.sections", "section"),
        *_duplicates(sheet.abilities, "sheet.abilities", "ability"),
        *_duplicates(sheet.skills, "sheet.skills", "skill"),
        *_duplicates(sheet.saves, "sheet.saves", "save"),
        *_duplicates(sheet.fields, "sheet.fields", "field"),
        *_duplicates(sheet.derived, "sheet.derived", "derived"),
        *_duplicates(sheet.lists, "sheet.lists", "list"),
        *_duplicates(live.pools, "sheet.live.pools", "pool"),
        *_duplicates(live.tracks, "sheet.live.tracks", "track"),
        *_duplicates(live.text, "sheet.live.text", "live text"),
        *_duplicates(live.conditions, "sheet.live.conditions", "condition"),
        *_duplicates(live.states, "sheet.live.states", "state"),
        *_duplicates(
            ruleset.resolution_common.proficiency_tiers, "resolution.proficiencyTiers", "tier"
        ),
        *_duplicates(ruleset.rests, "rests", "rest"),
        *_shared(sheet.saves, "sheet.saves", sheet.skills, "skill"),
        *_shared(live.tracks, "sheet.live.tracks", live.pools, "pool"),
        *_shared(sheet.derived, "sheet.derived", sheet.fields, "field"),
    ]
    for position, sheet_list in enumerate(sheet.lists):
        problems += _list_ids(sheet_list, f"sheet.lists.{position}")
    for position, track in enumerate(live.tracks):
        problems += _duplicates(track.kinds or [], f"sheet.live.tracks.{position}.kinds", "kind")
    party = ruleset.party
    if party is not None:
        problems += _duplicates(party.fields, "party.fields", "field")
        problems += _duplicates(party.pools, "party.pools", "pool")
        problems += _duplicates(party.lists, "party.lists", "list")
        problems += _shared(party.pools, "party.pools", party.fields, "party field")
        problems += _shared(
            party.lists, "party.lists", [*party.fields, *party.pools], "party field or pool"
        )
        for position, sheet_list in enumerate(party.lists):
            problems += _list_ids(sheet_list, f"party.lists.{position}")
    return problems


def _list_ids(sheet_list: SheetList, path: str) -> list[Problem]:
    return [
        *_duplicates(sheet_list.columns, f"{path}.columns", "column"),
        *_duplicates(sheet_list.checks or [], f"{path}.checks", "check"),
    ]


def _movable_target(ruleset: Ruleset) -> bool:
    """A dice-pool resolution whose per-die target can move (target.min < target.max)."""
    if ruleset.resolution_kind != "dice-pool":
        return False
    target = ruleset.resolution.get("target")
    if not isinstance(target, dict):
        return False
    low, high = target.get("min"), target.get("max")
    return isinstance(low, int) and isinstance(high, int) and low < high


def check_entries(ruleset: Ruleset) -> list[Problem]:
    """Sections, abilities, skills and saves name things that exist (002, "La ficha").

    Also "Qué hace una prueba sin entrenamiento.": `harder` raises a pool's
    per-die target by one, so it is refused unless the ruleset is a dice pool
    whose target can move; and skillTiers/saveTiers name proficiency tiers.
    """
    sheet = ruleset.sheet
    sections = {section.id for section in sheet.sections}
    abilities = {ability.id for ability in sheet.abilities}
    tiers = {tier.id for tier in ruleset.resolution_common.proficiency_tiers}
    harder_ok = _movable_target(ruleset)
    problems: list[Problem] = []

    def untrained(rule: object, path: str) -> None:
        if rule == "harder" and not harder_ok:
            problems.append(
                Problem(
                    f"{path}.untrained",
                    "untrained: harder needs a dice-pool ruleset whose target can move "
                    "(target.min < target.max); here it could never change a roll",
                )
            )

    def section(name: str | None, path: str) -> None:
        if name is not None and name not in sections:
            problems.append(Problem(f"{path}.section", f"names no section '{name}'"))

    for position, heading in enumerate(sheet.sections):
        untrained(heading.untrained, f"sheet.sections.{position}")
    for position, ability in enumerate(sheet.abilities):
        section(ability.section, f"sheet.abilities.{position}")
    for key, entries in (("skills", sheet.skills), ("saves", sheet.saves)):
        for position, entry in enumerate(entries):
            path = f"sheet.{key}.{position}"
            section(entry.section, path)
            untrained(entry.untrained, path)
            if entry.ability is not None and entry.ability not in abilities:
                problems.append(Problem(f"{path}.ability", f"names no ability '{entry.ability}'"))
    for key, offered in (("skillTiers", sheet.skill_tiers), ("saveTiers", sheet.save_tiers)):
        for position, tier in enumerate(offered or []):
            if tier not in tiers:
                problems.append(
                    Problem(f"sheet.{key}.{position}", f"names no proficiency tier '{tier}'")
                )
    for key, placed in (
        ("fields", sheet.fields),
        ("derived", sheet.derived),
        ("lists", sheet.lists),
    ):
        for position, item in enumerate(placed):
            section(item.section, f"sheet.{key}.{position}")
    return problems


def _field_problems(fields: Sequence[FieldLike], base: str, index: SheetIndex) -> list[Problem]:
    problems: list[Problem] = []
    for position, item in enumerate(fields):
        path = f"{base}.{position}"
        if isinstance(item, TextField | TextColumn) and item.pick is not None:
            problems += check_ref(item.pick, f"{path}.pick", index)
        if isinstance(item, _FIELDS):
            problems += _hide_when(item.hide_when, path, index, owner=item.id)
            if index.party and item.section is not None:
                problems.append(Problem(f"{path}.section", "a party sheet has no sections"))
    return problems


def check_fields(ruleset: Ruleset) -> list[Problem]:
    """Fields: hideWhen names another field and values it can hold; `pick` reads the sheet."""
    return _field_problems(ruleset.sheet.fields, "sheet.fields", SheetIndex.of_sheet(ruleset))


def check_derived(ruleset: Ruleset) -> list[Problem]:
    """Derived values read what exists, and only values declared above them.

    SCHEMA-NOTES §4: while `sheet.derived` is checked, a derived value must be
    declared above its reader (also through a computed ability, 004 1.156).
    002, "Números que lo siguen.": an enumTable reads an enum field or a live
    state, and every row of its table is a value that one can hold.
    """
    index = SheetIndex.of_sheet(ruleset)
    problems: list[Problem] = []
    for position, value in enumerate(ruleset.sheet.derived):
        path = f"sheet.derived.{position}"
        problems += _hide_when(value.hide_when, path, index)

        def not_above(node: Node, here: int = position) -> bool:
            return node[0] == "derived" and index.derived.get(node[1], (-1,))[0] >= here

        for below, ref in value.refs():
            problems += check_ref(ref, f"{path}.{below}", index)
            chain = index.trace([ref], not_above, index.is_computed)
            if chain is not None:
                problems.append(
                    Problem(
                        f"{path}.{below}",
                        f"reads {_describe(chain)}, declared at or below it; a derived value "
                        "reads only derived values declared above it",
                    )
                )
        if isinstance(value, EnumTableDerived):
            problems += _enum_table(value, path, index)
    return problems


def _enum_table(value: EnumTableDerived, path: str, index: SheetIndex) -> list[Problem]:
    source = value.from_
    values: list[str]
    if source.field is not None:
        found = index.fields.get(source.field)
        if not isinstance(found, EnumField):
            return [Problem(f"{path}.from.field", f"'{source.field}' is not an enum field")]
        values, what = found.values, f"field '{source.field}'"
    else:
        state = index.states.get(source.live_state or "")
        if state is None:
            return [Problem(f"{path}.from.liveState", f"names no live state '{source.live_state}'")]
        values, what = state.values, f"state '{source.live_state}'"
    return [
        Problem(f"{path}.table.{key}", f"'{key}' is not a value of {what}")
        for key in value.table
        if key not in values
    ]


def _list_problems(lists: Sequence[SheetList], base: str, index: SheetIndex) -> list[Problem]:
    problems: list[Problem] = []
    for position, sheet_list in enumerate(lists):
        path = f"{base}.{position}"
        problems += _hide_when(sheet_list.hide_when, path, index)
        if index.party and sheet_list.section is not None:
            problems.append(Problem(f"{path}.section", "a party sheet has no sections"))
        problems += _field_problems(sheet_list.columns, f"{path}.columns", index)
        problems += _columns(sheet_list, path, index)
        problems += _list_pools(sheet_list, path)
        if index.party:
            for key in ("contextual", "checks"):
                if getattr(sheet_list, key) is not None:
                    problems.append(
                        Problem(
                            f"{path}.{key}",
                            "a party list holds rows only: nobody rolls for the party, and party "
                            "values never read a character's",
                        )
                    )
        else:
            problems += _contextual(sheet_list, path, index)
            problems += _row_checks(sheet_list, path, index)
    return problems


def _expect_column(
    sheet_list: SheetList, column_id: str | None, kinds: tuple[type, ...], what: str, at: str
) -> list[Problem]:
    if column_id is None:
        return []
    column = sheet_list.column(column_id)
    if column is None:
        return [Problem(at, f"names no column '{column_id}' of list '{sheet_list.id}'")]
    if not isinstance(column, kinds):
        return [Problem(at, f"column '{column_id}' is not {what}")]
    return []


def _columns(sheet_list: SheetList, path: str, index: SheetIndex) -> list[Problem]:
    """004, "Columnas de lista calculadas": `sum` adds up to six other number columns.

    A computed column never sums another computed one; a roll's `sides` column
    is a number column or an enum of dice.
    """
    problems: list[Problem] = []
    for position, column in enumerate(sheet_list.columns):
        at = f"{path}.columns.{position}"
        if not isinstance(column, NumberColumn):
            continue
        for item, name in enumerate(column.sum or []):
            other = sheet_list.column(name)
            where = f"{at}.sum.{item}"
            if name == column.id:
                problems.append(Problem(where, "a computed column cannot sum itself"))
            elif other is None:
                problems.append(Problem(where, f"names no column '{name}'"))
            elif not isinstance(other, NumberColumn):
                problems.append(Problem(where, f"column '{name}' is not a number column"))
            elif other.sum is not None:
                problems.append(Problem(where, f"column '{name}' is itself computed"))
        sides = column.roll.sides if column.roll is not None else None
        if isinstance(sides, RollColumn):
            problems += _expect_column(
                sheet_list,
                sides.column,
                (NumberColumn, EnumColumn),
                "a number or enum column",
                f"{at}.roll.sides.column",
            )
        elif isinstance(sides, RulesetValueRef):
            problems += check_ref(sides, f"{at}.roll.sides", index)
    return problems


def _list_pools(sheet_list: SheetList, path: str) -> list[Problem]:
    pools = sheet_list.pools
    if pools is None:
        return []
    at = f"{path}.pools"
    return [
        *_expect_column(sheet_list, pools.name_column, _TEXT, "a text column", f"{at}.nameColumn"),
        *_expect_column(
            sheet_list, pools.max_column, _NUMBER, "a number column", f"{at}.maxColumn"
        ),
        *_expect_column(
            sheet_list, pools.recharge_column, _ENUM, "an enum column", f"{at}.rechargeColumn"
        ),
    ]


def _contextual(sheet_list: SheetList, path: str, index: SheetIndex) -> list[Problem]:
    """004, "Una lista puede declarar contextual" and the sections after it.

    Every check effect but `best` needs a dice pool; `cancel: false` needs a
    `resolution.cancel` to switch off (1.214); a cost marks a simple track,
    never a wound track (1.218), or pays a pool or pool group.
    """
    contextual = sheet_list.contextual
    if contextual is None:
        return []
    at = f"{path}.contextual"
    problems = [
        *_expect_column(sheet_list, contextual.name, _TEXT, "a text column", f"{at}.name"),
        *_expect_column(
            sheet_list, contextual.skill, (*_TEXT, *_ENUM), "a text or enum column", f"{at}.skill"
        ),
        *_expect_column(sheet_list, contextual.bonus, _NUMBER, "a number column", f"{at}.bonus"),
        *_expect_column(sheet_list, contextual.dice, (DiceColumn,), "a dice column", f"{at}.dice"),
    ]
    return problems + _contextual_effect(contextual.check, contextual.cost, at, index)


def _contextual_effect(
    check: ContextualCheck | None,
    costs: Sequence[ContextualCost] | None,
    at: str,
    index: SheetIndex,
) -> list[Problem]:
    """A contextual `check` and `cost`, on a list or a catalog entry (004, 1.214 and 1.218)."""
    problems: list[Problem] = []
    if check is not None:
        resolution = index.ruleset.resolution
        if check.pool_effects and index.ruleset.resolution_kind != "dice-pool":
            problems.append(
                Problem(
                    f"{at}.check",
                    "a contextual check effect other than best needs a dice-pool ruleset",
                )
            )
        elif check.cancel is False and not isinstance(resolution.get("cancel"), dict):
            problems.append(
                Problem(
                    f"{at}.check.cancel", "cancel: false needs a resolution.cancel to switch off"
                )
            )
    for position, cost in enumerate(costs or []):
        where = f"{at}.cost.{position}"
        if cost.pool is not None and cost.pool not in index.pools and cost.pool not in index.groups:
            problems.append(Problem(f"{where}.pool", f"names no pool or pool group '{cost.pool}'"))
        if cost.track is not None:
            track = index.tracks.get(cost.track)
            if track is None:
                problems.append(Problem(f"{where}.track", f"names no live track '{cost.track}'"))
            elif track.is_wound:
                problems.append(
                    Problem(f"{where}.track", "a cost marks a simple track, never a wound track")
                )
    return problems


def _row_checks(sheet_list: SheetList, path: str, index: SheetIndex) -> list[Problem]:
    """004, "Filas que son pruebas por sí mismas": up to four checks read from each row.

    `name` is a text column, `rating` a number column, `ability` an ability;
    two checks of one list are two stances told apart by their `label`, and a
    `stance` (1.212) is one of the dice pool's `resolution.stances`.
    """
    problems: list[Problem] = []
    checks = sheet_list.checks or []
    stances = _ids(index.ruleset.resolution, "stances") or set()
    for position, check in enumerate(checks):
        at = f"{path}.checks.{position}"
        problems += _expect_column(sheet_list, check.name, _TEXT, "a text column", f"{at}.name")
        problems += _expect_column(
            sheet_list, check.rating, _NUMBER, "a number column", f"{at}.rating"
        )
        if check.ability is not None and check.ability not in index.abilities:
            problems.append(Problem(f"{at}.ability", f"names no ability '{check.ability}'"))
        if check.stance is not None and check.stance not in stances:
            problems.append(Problem(f"{at}.stance", f"names no resolution stance '{check.stance}'"))
        if len(checks) > 1 and check.label is None:
            problems.append(
                Problem(
                    f"{at}.label",
                    "two checks in one list are two stances of one value: each needs a label",
                )
            )
    return problems


def check_lists(ruleset: Ruleset) -> list[Problem]:
    """Lists: hideWhen, computed columns, row pools, contextual rows and row checks."""
    return _list_problems(ruleset.sheet.lists, "sheet.lists", SheetIndex.of_sheet(ruleset))


def _pool_problems(pools: Sequence[LivePool], base: str, index: SheetIndex) -> list[Problem]:
    """002 `live.pools`: the max and `startFrom` read the sheet, never live state."""
    problems: list[Problem] = []
    for position, pool in enumerate(pools):
        path = f"{base}.{position}"
        problems += _hide_when(pool.hide_when, path, index)
        for key, ref in (("max", pool.max), ("startFrom", pool.start_from)):
            if ref is None:
                continue
            found = check_ref(ref, f"{path}.{key}", index)
            problems += found
            if not found and not index.party:
                problems += _no_live(ref, f"{path}.{key}", index, f"a pool's {key}")
    return problems


def check_live_pools(ruleset: Ruleset) -> list[Problem]:
    """002, "Todo lector de números…": a pool max is worked out before play, so no live reads."""
    return _pool_problems(
        ruleset.sheet.live.pools, "sheet.live.pools", SheetIndex.of_sheet(ruleset)
    )


def check_live_tracks(ruleset: Ruleset) -> list[Problem]:
    """002, "Contadores de heridas…" to "Niveles que añade una lista": the track rules.

    A plain track is a bounded number (its max may be a reference, 002 "El
    max de un contador simple…"). A wound track has kinds and either levels or
    boxes, never both; min 0; max equal to its levels or, for boxes, 0–64; only
    0 as default; distinct severities; penalties never better going down; never
    hidden; an indexed fill refuses when full; `extra` only with levels.
    """
    index = SheetIndex.of_sheet(ruleset)
    problems: list[Problem] = []
    for position, track in enumerate(ruleset.sheet.live.tracks):
        path = f"sheet.live.tracks.{position}"
        for key, ref in (("max", track.max), ("startFrom", track.start_from)):
            if isinstance(ref, RulesetValueRef):
                found = check_ref(ref, f"{path}.{key}", index)
                problems += found or _no_live(ref, f"{path}.{key}", index, f"a track's {key}")
        if track.is_wound:
            problems += _wound_track(track, path, index)
        else:
            problems += _plain_track(track, path, index)
    return problems


def _plain_track(track: LiveTrack, path: str, index: SheetIndex) -> list[Problem]:
    problems = _hide_when(track.hide_when, path, index)
    for key, value in (("fill", track.fill), ("onFull", track.on_full), ("extra", track.extra)):
        if value is not None:
            problems.append(
                Problem(
                    f"{path}.{key}",
                    f"{key} only goes on a wound track (kinds with levels or boxes)",
                )
            )
    if track.default is not None and track.start_from is not None:
        problems.append(
            Problem(
                f"{path}.startFrom",
                "a simple track takes startFrom instead of default, not beside it",
            )
        )
    if isinstance(track.max, int):
        if track.min > track.max:
            problems.append(Problem(f"{path}.max", "a track needs min ≤ max"))
        elif track.default is not None and not track.min <= track.default <= track.max:
            problems.append(Problem(f"{path}.default", "default must lie within min..max"))
    elif track.default is not None and track.default < track.min:
        problems.append(Problem(f"{path}.default", "default must not be below min"))
    return problems


def _wound_track(track: LiveTrack, path: str, index: SheetIndex) -> list[Problem]:
    problems: list[Problem] = []
    levels, boxes = track.levels, track.boxes
    if levels is None and boxes is None:
        problems.append(
            Problem(
                f"{path}.kinds", "kinds need levels or boxes: without them there is nowhere to mark"
            )
        )
    if levels is not None and boxes is not None:
        problems.append(Problem(f"{path}.boxes", "a wound track has levels or boxes, never both"))
    if track.kinds is None:
        key = "levels" if levels is not None else "boxes"
        problems.append(Problem(f"{path}.{key}", f"{key} need kinds: every mark is of some kind"))
    if track.min != 0:
        problems.append(Problem(f"{path}.min", "a wound track starts without marks: min is 0"))
    if track.default not in (None, 0):
        problems.append(Problem(f"{path}.default", "a wound track's default can only be 0"))
    if track.start_from is not None:
        problems.append(Problem(f"{path}.startFrom", "a wound track starts without marks"))
    if track.hide_when is not None:
        problems.append(
            Problem(
                f"{path}.hideWhen",
                "a wound track cannot be hidden: checks and "
                "fights read it whatever the sheet shows",
            )
        )
    if levels is not None and boxes is None:
        if track.max != len(levels):
            problems.append(
                Problem(
                    f"{path}.max",
                    f"a track with named levels has max equal to its {len(levels)} levels",
                )
            )
        for position in range(1, len(levels)):
            if levels[position].penalty > levels[position - 1].penalty:
                problems.append(
                    Problem(
                        f"{path}.levels.{position}.penalty",
                        "penalties never get better going down the levels",
                    )
                )
    if boxes is not None:
        if isinstance(track.max, int) and not 0 <= track.max <= 64:
            problems.append(Problem(f"{path}.max", "a track of numbered boxes has 0–64 boxes"))
        for position, (_, penalty) in enumerate(boxes.penalty.table):
            if penalty > 0:
                problems.append(
                    Problem(f"{path}.boxes.penalty.table.{position}", "a box penalty is 0 or below")
                )
    severities: set[int] = set()
    for position, kind in enumerate(track.kinds or []):
        if kind.severity in severities:
            problems.append(
                Problem(
                    f"{path}.kinds.{position}.severity",
                    "severities must be distinct: only their order matters",
                )
            )
        severities.add(kind.severity)
    if track.fill_mode == "indexed" and track.when_full != "refuse":
        problems.append(
            Problem(
                f"{path}.onFull",
                'an indexed track always refuses: declare "onFull": "refuse" beside it',
            )
        )
    if track.extra is not None:
        problems += _track_extra(track, path, index)
    return problems


def _track_extra(track: LiveTrack, path: str, index: SheetIndex) -> list[Problem]:
    extra = track.extra
    assert extra is not None
    at = f"{path}.extra"
    if track.levels is None:
        return [Problem(at, "extra adds levels, so it only goes with named levels")]
    sheet_list = index.lists.get(extra.list)
    if sheet_list is None:
        return [Problem(f"{at}.list", f"names no list '{extra.list}'")]
    return [
        *_expect_column(
            sheet_list, extra.count_column, _NUMBER, "a number column", f"{at}.countColumn"
        ),
        *_expect_column(
            sheet_list, extra.penalty_column, _NUMBER, "a number column", f"{at}.penaltyColumn"
        ),
    ]


def check_live_states(ruleset: Ruleset) -> list[Problem]:
    """002, "Estados vivos": a state may be hidden by a field like a pool."""
    index = SheetIndex.of_sheet(ruleset)
    return [
        problem
        for position, state in enumerate(ruleset.sheet.live.states)
        for problem in _hide_when(state.hide_when, f"sheet.live.states.{position}", index)
    ]


def check_formulas(ruleset: Ruleset) -> list[Problem]:
    """Caps, the proficiency bonus, computed abilities and adjust read what they may.

    002, "Una habilidad o salvación puede llevar un cap": a cap (and, SCHEMA-NOTES
    §5, the proficiency bonus) reads no skill or save modifier; the bonus is
    worked out before play and reads no live state either. 004, "Puntuaciones
    calculadas…": no computed score reads another (or itself), not even through
    a derived value. 002, "Modificadores fuera de la ficha": adjust reads any
    sheet value, live state included, for abilities that exist.
    """
    index = SheetIndex.of_sheet(ruleset)
    common = ruleset.resolution_common
    problems: list[Problem] = []
    for key, entries in (("skills", ruleset.sheet.skills), ("saves", ruleset.sheet.saves)):
        for position, entry in enumerate(entries):
            if entry.cap is not None:
                path = f"sheet.{key}.{position}.cap"
                found = check_ref(entry.cap, path, index)
                problems += found or _no_skill_mods(entry.cap, path, index, "a cap")
    if common.proficiency is not None:
        path = "resolution.proficiency.bonus"
        bonus = common.proficiency.bonus
        found = check_ref(bonus, path, index)
        problems += found or [
            *_no_live(bonus, path, index, "the proficiency bonus"),
            *_no_skill_mods(bonus, path, index, "the proficiency bonus"),
        ]
    for position, ability in enumerate(ruleset.sheet.abilities):
        for item, ref in enumerate(ability.value or []):
            path = f"sheet.abilities.{position}.value.{item}"
            found = check_ref(ref, path, index)
            chain = None if found else index.trace([ref], index.is_computed)
            problems += found
            if chain is not None:
                other = chain[-1][1]
                which = "itself" if other == ability.id else f"computed score '{other}'"
                problems.append(
                    Problem(path, f"a computed score cannot read {which} ({_describe(chain)})")
                )
    for position, adjust in enumerate(common.adjust):
        path = f"resolution.adjust.{position}"
        problems += check_ref(adjust.value, f"{path}.value", index)
        for item, name in enumerate(adjust.abilities or []):
            if name not in index.abilities:
                problems.append(Problem(f"{path}.abilities.{item}", f"names no ability '{name}'"))
    return problems


def check_resolution_common(ruleset: Ruleset) -> list[Problem]:
    """The shared resolution keys that name the sheet.

    002, "La penalización de las tiradas": `penaltyFrom` names a wound track;
    an ordinary track has no penalty and is refused. SCHEMA-NOTES §5: a tier
    with a non-zero multiplier needs `proficiency`.
    """
    common = ruleset.resolution_common
    problems: list[Problem] = []
    if common.penalty_from is not None:
        track = SheetIndex.of_sheet(ruleset).tracks.get(common.penalty_from)
        if track is None:
            problems.append(
                Problem("resolution.penaltyFrom", f"names no live track '{common.penalty_from}'")
            )
        elif not track.is_wound:
            problems.append(
                Problem(
                    "resolution.penaltyFrom",
                    f"'{common.penalty_from}' is an ordinary track, which has "
                    "no penalty: name a wound track",
                )
            )
    if common.proficiency is None:
        for position, tier in enumerate(common.proficiency_tiers):
            if tier.multiplier != 0:
                problems.append(
                    Problem(
                        f"resolution.proficiencyTiers.{position}.multiplier",
                        "a multiplying tier needs resolution.proficiency",
                    )
                )
    return problems


def _advancement(fields: Sequence[str], base: str, index: SheetIndex) -> list[Problem]:
    """002/004: advanceable fields are number, text or longtext fields, each named once."""
    problems: list[Problem] = []
    seen: set[str] = set()
    for position, name in enumerate(fields):
        at = f"{base}.fields.{position}"
        found = index.fields.get(name)
        if found is None:
            problems.append(Problem(at, f"names no field '{name}'"))
        elif not isinstance(found, _ADVANCEABLE):
            problems.append(Problem(at, f"field '{name}' is not a number, text or longtext field"))
        elif name in seen:
            problems.append(Problem(at, f"field '{name}' is named twice"))
        seen.add(name)
    return problems


def check_advancement(ruleset: Ruleset) -> list[Problem]:
    """004, "Listas de avance más largas": sheet.advancement names up to 64 fields."""
    advancement = ruleset.sheet.advancement
    if advancement is None:
        return []
    return _advancement(advancement.fields, "sheet.advancement", SheetIndex.of_sheet(ruleset))


def check_rests(ruleset: Ruleset) -> list[Problem]:
    """002, "Descansos": every step's target exists and what it sets is something it holds.

    `listPools` names a list with pools, and `recharge` values of its
    rechargeColumn; `kind` narrows a wound track to one of its kinds; a state
    step sets "default" or one of the state's values; `clear` names live text
    and conditions that exist.
    """
    index = SheetIndex.of_sheet(ruleset)
    live = ruleset.sheet.live
    texts = {text.id for text in live.text}
    conditions = {condition.id for condition in live.conditions}
    problems: list[Problem] = []
    for position, rest in enumerate(ruleset.rests):
        path = f"rests.{position}"
        for item, step in enumerate(rest.restore):
            problems += _restore_step(step, f"{path}.restore.{item}", index)
        for item, name in enumerate(rest.clear.text):
            if name not in texts:
                problems.append(
                    Problem(f"{path}.clear.text.{item}", f"names no live text '{name}'")
                )
        if rest.clear.conditions != "all":
            for item, name in enumerate(rest.clear.conditions):
                if name not in conditions:
                    problems.append(
                        Problem(f"{path}.clear.conditions.{item}", f"names no condition '{name}'")
                    )
    return problems


def _restore_step(step: RestoreStep, path: str, index: SheetIndex) -> list[Problem]:
    key, name = step.target
    at = f"{path}.{key}"
    if key == "pool" and name not in index.pools:
        return [Problem(at, f"names no live pool '{name}'")]
    if key == "poolGroup" and name not in index.groups:
        return [Problem(at, f"names no pool group '{name}'")]
    if key == "listPools":
        sheet_list = index.lists.get(name)
        if sheet_list is None or sheet_list.pools is None:
            return [Problem(at, f"names no list with pools '{name}'")]
        if step.recharge is None:
            return []
        recharge = sheet_list.column(sheet_list.pools.recharge_column or "")
        if not isinstance(recharge, EnumColumn):
            return [Problem(f"{path}.recharge", f"list '{name}' has no rechargeColumn")]
        return [
            Problem(
                f"{path}.recharge.{item}", f"'{value}' is not a value of column '{recharge.id}'"
            )
            for item, value in enumerate(step.recharge)
            if value not in recharge.values
        ]
    if key == "track":
        track = index.tracks.get(name)
        if track is None:
            return [Problem(at, f"names no live track '{name}'")]
        if step.kind is not None and step.kind not in {kind.id for kind in track.kinds or []}:
            what = "is not a kind of" if track.is_wound else "only narrows a wound track, not"
            return [Problem(f"{path}.kind", f"'{step.kind}' {what} track '{name}'")]
    if key == "state":
        state = index.states.get(name)
        if state is None:
            return [Problem(at, f"names no live state '{name}'")]
        if step.to != "default" and step.to not in state.values:
            return [
                Problem(
                    f"{path}.to", f"'{step.to}' is not \"default\" or a value of state '{name}'"
                )
            ]
    return []


def check_party(ruleset: Ruleset) -> list[Problem]:
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
    index = SheetIndex.of_party(ruleset, party)
    problems = [
        *_field_problems(party.fields, "party.fields", index),
        *_pool_problems(party.pools, "party.pools", index),
        *_list_problems(party.lists, "party.lists", index),
    ]
    if party.advancement is not None:
        problems += _advancement(party.advancement.fields, "party.advancement", index)
    if party.summary is not None:
        problems += _summary(party.summary, index, "party.summary")
    character = SheetIndex.of_sheet(ruleset)
    seen: set[str] = set()
    for position, member in enumerate(party.from_members):
        at = f"party.fromMembers.{position}"
        if not isinstance(index.fields.get(member.field), NumberField):
            problems.append(Problem(f"{at}.field", f"'{member.field}' is not a party number field"))
        elif member.field in seen:
            problems.append(Problem(f"{at}.field", f"'{member.field}' is read from members twice"))
        seen.add(member.field)
        if member.sum is not None and not isinstance(character.fields.get(member.sum), NumberField):
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
        problems += _expect_column(
            sheet_list,
            shown.name_column,
            (*_TEXT, *_ENUM),
            "a text or enum column",
            f"{at}.nameColumn",
        )
        for item, column in enumerate(shown.columns or []):
            if sheet_list.column(column) is None:
                problems.append(Problem(f"{at}.columns.{item}", f"names no column '{column}'"))
        if shown.group_by is not None and sheet_list.column(shown.group_by) is None:
            problems.append(Problem(f"{at}.groupBy", f"names no column '{shown.group_by}'"))
        problems += _expect_column(
            sheet_list, shown.only_when, _BOOLEAN, "a boolean column", f"{at}.onlyWhen"
        )
    return problems


def check_gm_summary(ruleset: Ruleset) -> list[Problem]:
    """002, "Texto del Game Master": `gm.sheetSummary` names entries the sheet has."""
    return _summary(ruleset.gm_text.sheet_summary, SheetIndex.of_sheet(ruleset), "gm.sheetSummary")


def check_combat_health(ruleset: Ruleset) -> list[Problem]:
    """002, "¿Qué forma necesita tu sistema?": damage kinds need a wound track to land on.

    `combat.damageKinds` is refused when combat's health is a pool (a pool
    cannot remember what kind each point was), and required when it is a
    wound track (SCHEMA-NOTES §11).
    """
    combat = ruleset.combat
    if not isinstance(combat, dict) or not isinstance(combat.get("health"), dict):
        return []
    health = combat["health"]
    kinds = combat.get("damageKinds")
    if "pool" in health and kinds is not None:
        return [
            Problem(
                "combat.damageKinds",
                "a pool cannot remember damage kinds: point "
                "combat.health at a wound track, or use "
                "damageTypes",
            )
        ]
    track = SheetIndex.of_sheet(ruleset).tracks.get(str(health.get("track")))
    if track is not None and track.is_wound and kinds is None:
        return [
            Problem(
                "combat.damageKinds",
                "combat.health is a wound track, so damageKinds must say which kind each hit marks",
            )
        ]
    return []


# ---------------------------------------------------------------------------
# Resolution (000): what it names elsewhere in the file


def _below(base: str, found: Found) -> list[Problem]:
    """Problems found by a model's rules, at their paths below `base`."""
    return [Problem(".".join([base, *map(str, loc)]), message) for loc, message in found]


def _invalid(error: ValidationError, base: str) -> list[Problem]:
    """A pydantic error's problems, at their paths below `base`."""
    return _below(base, [(tuple(item["loc"]), item["msg"]) for item in error.errors()])


def check_resolution_refs(ruleset: Ruleset) -> list[Problem]:
    """000: what the resolution names on the sheet exists.

    "Gastar para cambiar una tirada": a spend's `pool` is one of
    `live.pools` and "No puede empezar vacía"; a `perCheck` value reads the
    sheet. "Pruebas que tiran a su manera": an override's skills, saves and
    abilities exist and `when` is a sheet value. "target.from: opcional":
    `target.from` is a value reference and a stance's skills exist.
    """
    rules = ruleset.resolution_rules
    index = SheetIndex.of_sheet(ruleset)
    problems: list[Problem] = []
    for position, entry in enumerate(rules.spend or []):
        at = f"resolution.spend.{position}"
        pool = index.pools.get(entry.pool)
        if pool is None:
            problems.append(Problem(f"{at}.pool", f"names no live pool '{entry.pool}'"))
        elif pool.starts_empty:
            problems.append(
                Problem(
                    f"{at}.pool",
                    f"pool '{entry.pool}' starts empty: there would be nothing to spend "
                    "when play begins",
                )
            )
        if isinstance(entry.per_check, RulesetValueRef):
            problems += check_ref(entry.per_check, f"{at}.perCheck", index)
    known: dict[str, Mapping[str, object]] = {
        "skills": index.skills,
        "saves": index.saves,
        "abilities": index.abilities,
    }
    for position, override in enumerate(rules.overrides):
        at = f"resolution.overrides.{position}"
        for key, item, name in override.checks():
            if name not in known[key]:
                problems.append(
                    Problem(f"{at}.{key}.{item}", f"names no {CHECK_WORDS[key]} '{name}'")
                )
        if override.when is not None:
            problems += check_ref(override.when, f"{at}.when", index)
    for loc, ref in rules.sheet_refs():
        problems += check_ref(ref, ".".join(["resolution", *map(str, loc)]), index)
    for loc, name in rules.skill_refs():
        if name not in index.skills:
            problems.append(
                Problem(".".join(["resolution", *map(str, loc)]), f"names no skill '{name}'")
            )
    return problems


def check_catalog_checks(ruleset: Ruleset) -> list[Problem]:
    """000, "Un amuleto que cambia una tirada" (SCHEMA-NOTES §9): a catalog entry's check.

    "Solo dice-pool puede aplicarlo; un conjunto dice-sum con mechanics.check
    se rechaza al importar": on any other kind it is refused. On a dice pool
    it is strict, does at least one thing, and its faces fit the pool
    (`DicePool.check_effect_rules`). Catalogs stay JSON objects; entries held
    in an asset file are not read here.
    """
    rules = ruleset.resolution_rules
    problems: list[Problem] = []
    for position, catalog in enumerate(ruleset.catalogs or []):
        entries = catalog.get("entries")
        for item, entry in enumerate(entries if isinstance(entries, list) else []):
            mechanics = entry.get("mechanics") if isinstance(entry, dict) else None
            check = mechanics.get("check") if isinstance(mechanics, dict) else None
            if check is None:
                continue
            at = f"catalogs.{position}.entries.{item}.mechanics.check"
            if not rules.charms:
                problems.append(
                    Problem(
                        at,
                        f"only a dice-pool ruleset applies mechanics.check; this one is "
                        f"{rules.kind_name}",
                    )
                )
                continue
            try:
                effect = MechanicsCheck.model_validate(check)
            except ValidationError as error:
                problems += _invalid(error, at)
                continue
            problems += _below(at, rules.check_effect_rules(effect))
    return problems


def check_catalog_contextual(ruleset: Ruleset) -> list[Problem]:
    """004, "Una entrada de catálogo puede llevar mechanics.contextual": its shape and names.

    Strict like a list's contextual: the skills and saves it is restricted to
    exist, its `check` and `cost` follow the list rules (pool effects need a
    dice pool, `cancel: false` a `resolution.cancel`, a cost a pool, pool
    group or simple track). Entries held in an asset file are not read here.
    """
    index = SheetIndex.of_sheet(ruleset)
    problems: list[Problem] = []
    for position, catalog in enumerate(ruleset.catalogs or []):
        entries = catalog.get("entries")
        for item, entry in enumerate(entries if isinstance(entries, list) else []):
            mechanics = entry.get("mechanics") if isinstance(entry, dict) else None
            raw = mechanics.get("contextual") if isinstance(mechanics, dict) else None
            if raw is None:
                continue
            at = f"catalogs.{position}.entries.{item}.mechanics.contextual"
            try:
                contextual = EntryContextual.model_validate(raw)
            except ValidationError as error:
                problems += _invalid(error, at)
                continue
            for key, known in (("skills", index.skills), ("saves", index.saves)):
                for place, name in enumerate(getattr(contextual, key) or []):
                    if name not in known:
                        problems.append(
                            Problem(f"{at}.{key}.{place}", f"names no {key[:-1]} '{name}'")
                        )
            problems += _contextual_effect(contextual.check, contextual.cost, at, index)
    return problems


def check_layer_ladders(ruleset: Ruleset) -> list[Problem]:
    """SCHEMA-NOTES §12: a layer's `difficultyLadder` replaces the base one, in the kind's shape.

    Each rung is checked like the resolution's own (000: a pool rung's
    target only when the target can move; dice-highest `dc` up to keep ×
    sides; symbol-pool `dc` up to difficulty.max).
    """
    rules = ruleset.resolution_rules
    problems: list[Problem] = []
    for position, layer in enumerate(ruleset.layers or []):
        ladder = layer.get("difficultyLadder")
        if ladder is None:
            continue
        at = f"layers.{position}.difficultyLadder"
        try:
            rungs = ladder_adapter(rules.rung).validate_python(ladder)
        except ValidationError as error:
            problems += _invalid(error, at)
            continue
        problems += _below(at, rules.ladder_rules(rungs))
    return problems


def check_resolution_combat(ruleset: Ruleset) -> list[Problem]:
    """Which `combat` goes with which resolution kind.

    000, "dice-highest": "no tiene combate propio, así que se rechaza combat
    junto a él". 000, "symbol-pool": its combats are of kind symbol-pool,
    "cualquier otro tipo de combate se rechaza junto a él". SCHEMA-NOTES §11:
    a dice-pool combat requires a dice-pool resolution (and, by the same
    token, a symbol-pool combat a symbol-pool one).
    """
    combat = ruleset.combat
    if combat is None:
        return []
    kind, fights = ruleset.resolution_kind, combat.get("kind")
    if kind == "dice-highest":
        return [Problem("combat", "a dice-highest ruleset has no combat of its own")]
    if kind == "symbol-pool" and fights != "symbol-pool":
        return [Problem("combat.kind", "a symbol-pool ruleset's combat is of kind symbol-pool")]
    if fights in ("dice-pool", "symbol-pool") and kind != fights:
        return [Problem("combat.kind", f"a {fights} combat needs a {fights} resolution")]
    return []


PASSES: tuple[Check, ...] = (
    check_duplicate_ids,
    check_entries,
    check_fields,
    check_derived,
    check_lists,
    check_live_pools,
    check_live_tracks,
    check_live_states,
    check_formulas,
    check_resolution_common,
    check_advancement,
    check_rests,
    check_party,
    check_gm_summary,
    check_combat_health,
    check_resolution_refs,
    check_catalog_checks,
    check_catalog_contextual,
    check_layer_ladders,
    check_resolution_combat,
)
"""The passes, in the order their problems are reported."""

CHECKS.extend(check for check in PASSES if check not in CHECKS)
