"""Look-ups over one sheet and its dependency graph, built once per load (`SheetIndex`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.party import Party
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.sheet import (
    Ability,
    BooleanColumn,
    BooleanField,
    CheckEntry,
    DerivedValue,
    DiceField,
    EnumColumn,
    EnumField,
    EnumTableDerived,
    FieldLike,
    LivePool,
    LiveState,
    LiveTrack,
    LongTextField,
    NumberColumn,
    NumberField,
    SheetList,
    TextColumn,
    TextField,
)

Node = tuple[str, str]
"""A value in the sheet's dependency graph: (kind, id), the kind being derived, ability,
skill, save or live (whose id then says which live read it is)."""

NUMBER = (NumberField, NumberColumn)
TEXT = (TextField, TextColumn)
ENUM = (EnumField, EnumColumn)
BOOLEAN = (BooleanField, BooleanColumn)
ADVANCEABLE = (NumberField, TextField, LongTextField)
FIELDS = (NumberField, TextField, LongTextField, BooleanField, EnumField, DiceField)
"""Fields, as opposed to list columns (which have no section or hideWhen)."""


def _first_by_id(items: Iterable[Any]) -> dict[str, Any]:
    """Items by id; the first of a repeated id wins (the repeat is its own problem)."""
    found: dict[str, Any] = {}
    for item in items:
        found.setdefault(item.id, item)
    return found


def _step_catalogs(builder: Any) -> set[str]:
    """The catalogs a builder's steps pick from (catalog and choices steps), read from the
    builder's JSON: a step with a problem of its own still says which catalog it is for."""
    steps = builder.get("steps") if isinstance(builder, dict) else None
    listed = steps if isinstance(steps, list) else []
    return {
        name
        for step in listed
        if isinstance(step, dict) and isinstance(name := step.get("catalog"), str)
    }


def reads_modifier(node: Node) -> bool:
    """True for a node that reads a skill's or a save's modifier."""
    return node[0] in ("skill", "save")


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
    broken: frozenset[str] = frozenset()
    _edges: dict[Node, list[Node]] = field(default_factory=dict, repr=False)
    _party_index: SheetIndex | None = field(default=None, repr=False)

    def parsed(self, *parts: str) -> bool:
        """True when none of `parts` (`sheet.fields`, `resolution`, …) has shape problems: a
        name looked up in a part left out would read as missing when it may not be."""
        return not self.broken.intersection(parts)

    @classmethod
    def of_sheet(cls, ruleset: Ruleset, broken: frozenset[str] = frozenset()) -> SheetIndex:
        """The character sheet's index; `broken` names the parts of the file with shape
        problems (`gmtags.ruleset.validate.validate`)."""
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
            broken=broken,
        )

    @classmethod
    def of_party(
        cls, ruleset: Ruleset, party: Party, broken: frozenset[str] = frozenset()
    ) -> SheetIndex:
        """The party sheet's index: its own fields, pools and lists, nothing of a character's
        (the party's own names are looked up only once the party has parsed)."""
        return cls(
            ruleset=ruleset,
            party=True,
            broken=broken,
            fields=_first_by_id(party.fields),
            lists=_first_by_id(party.lists),
            pools=_first_by_id(party.pools),
            groups={pool.group for pool in party.pools if pool.group is not None},
        )

    @cached_property
    def party_catalogs(self) -> frozenset[str]:
        """The catalogs the party's builder picks from and the character's does not (002,
        "Creación compartida del grupo": its catalog steps "pueden leer los catálogos del
        conjunto que alimentan las listas del grupo"): their lists, fields and grants are
        the party's."""
        party = self.ruleset.party
        return frozenset(
            _step_catalogs(party.builder if party is not None else None)
            - _step_catalogs(self.ruleset.sheet.builder)
        )

    def for_catalog(self, catalog_id: str) -> SheetIndex:
        """The sheet a catalog's lists, fields and grants are read against: the party's for a
        party catalog (`party_catalogs`), else this one."""
        party = self.ruleset.party
        if self.party or party is None or catalog_id not in self.party_catalogs:
            return self
        if self._party_index is None:
            self._party_index = SheetIndex.of_party(self.ruleset, party, self.broken)
        return self._party_index

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
            chain = self.trace(refs, reads_modifier, self.is_computed)
            if chain is not None:
                return position, chain
        return None

    def is_computed(self, node: Node) -> bool:
        """True for an ability whose score is computed (004, 1.156)."""
        ability = self.abilities.get(node[1]) if node[0] == "ability" else None
        return ability is not None and ability.value is not None


def describe(path: Sequence[Node]) -> str:
    return " → ".join(name if kind == "live" else f"{kind} '{name}'" for kind, name in path)
