"""A step's view: the controls a player uses on it, as plain data (SPEC §10's answers are
what they change).

A step kind that gives a view (`gmtags.builder.steps.StepKind.view`) is drawn from it alone:
the terminal wizard prints it (`gmtags.builder.wizard_view`) and the builder page renders it
(`gmtags/server/static/builder/builder-view.js`), neither knowing the kind. Each control names the
place in the answers document it changes (`path`, from the document's root) and how:

- `Choose`: options; a pick toggles its value in the list at `path`, or, with `single`,
  makes the list that value alone (`clearable`: "None" empties it);
- `Number` / `Text` / `Flag` / `Pick`: the value typed, ticked or picked replaces the one
  at `path` (an empty one drops it); a `Number` or `Pick` may write more (`also`, `then`);
- `Count`: − and + move the count at `path` by one (0 drops it);
- `Press`: a button that puts `value` at `path` (a Set, a Roll again), or appends it to
  the list there or removes that list's item at an index (Add a row, Remove row N);
- `Visit`: what opening the step writes;
- `Fact` / `Note`: a line to read; `Group` / `Table`: controls under a heading or in rows;
  these change nothing themselves.

`change` applies a control's edit to an answers document the same way everywhere, so the
page and the wizard cannot disagree about what a control does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from gmtags.ruleset.model import Ruleset
from gmtags.sheet.values import SheetValues
from gmtags.state.snapshot import CharacterCard

Path = tuple[str | int, ...]
"""Keys from the answers document's root: `("steps", "oath", "picks")`; a number is a
list's index (`("steps", "hp", "rows", 1, "roll")`)."""


@dataclass(frozen=True)
class Option:
    """One thing a `Choose` offers: the answer value and how the player sees it."""

    value: str
    label: str
    summary: str = ""
    chosen: bool = False
    reason: str = ""
    """Why a chosen value is kept but not counted, or why an option is not open now."""
    disabled: bool = False
    details: tuple[str, ...] = ()
    """Lines listed under the option (a kit's items)."""


@dataclass(frozen=True)
class Choose:
    label: str
    path: Path
    options: tuple[Option, ...]
    single: bool = True
    clearable: bool = False
    most: int | None = None
    """How many may be chosen at once (options past it wait until one is unpicked)."""
    name: str = ""
    """The options' element ids on the page: `gb-<name>-<value>`."""
    empty: str = ""
    """What the step says when there is nothing to choose."""
    about: str = ""
    """What is chosen, when the label only asks ("Choose one" a race): the group's name."""
    type: Literal["choose"] = "choose"


@dataclass(frozen=True)
class Number:
    label: str
    path: Path
    value: int | float | None = None
    low: int | float | None = None
    high: int | float | None = None
    name: str = ""
    whole: bool = True
    """Only whole numbers (else any number)."""
    buttons: bool = False
    """− and + beside it: one lower or higher, within `low` and `high`, from `value` while
    the answers hold none."""
    also: tuple[tuple[Path, Any], ...] = ()
    """More the edit writes (None drops it): the method a first score chooses."""
    type: Literal["number"] = "number"


@dataclass(frozen=True)
class Text:
    label: str
    path: Path
    value: str = ""
    name: str = ""
    long: bool = False
    """Several lines (a textarea)."""
    most: int | None = None
    """The longest text taken."""
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class Pick:
    """One of a list of values (a select): `choices` as (value, label); "—" leaves it out."""

    label: str
    path: Path
    choices: tuple[tuple[Any, str], ...]
    value: Any = None
    name: str = ""
    radios: bool = False
    """Drawn as radio buttons (else a select)."""
    also: tuple[tuple[Path, Any], ...] = ()
    """More the edit writes, whatever is picked (None drops it)."""
    then: tuple[tuple[Any, tuple[tuple[Path, Any], ...]], ...] = ()
    """More a pick of each value writes: (value, ((path, value), ...))."""
    type: Literal["pick"] = "pick"


@dataclass(frozen=True)
class Flag:
    """Yes or no (a checkbox)."""

    label: str
    path: Path
    value: bool | None = None
    name: str = ""
    type: Literal["flag"] = "flag"


@dataclass(frozen=True)
class Count:
    """A count raised or lowered by one (− and + buttons; 0 leaves it out), beside what it
    gives (`shown`): dots placed, purchases made."""

    label: str
    path: Path
    count: int
    lower: bool = True
    higher: bool = True
    shown: str = ""
    name: str = ""
    type: Literal["count"] = "count"


@dataclass(frozen=True)
class Note:
    """A line that says something about the step (a limit, why nothing is offered)."""

    text: str
    tone: Literal["", "points", "over", "warn", "reason"] = ""
    """"reason": why the step waits (the build's reasons, listed together)."""
    pool: str = ""
    """The creation pool the line tells of (the page marks it `data-pool`)."""
    type: Literal["note"] = "note"


@dataclass(frozen=True)
class Group:
    """Controls under a heading (an entry choice, a group of targets)."""

    label: str
    controls: tuple[Control, ...]
    mark: str = ""
    type: Literal["group"] = "group"


@dataclass(frozen=True)
class Table:
    """Rows of controls under column heads (a list's rows): each row's controls in its
    cells, in the order of `columns`, any more (a Remove) after them."""

    label: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Control, ...], ...]
    off: tuple[int, ...] = ()
    """The rows kept but not counted."""
    type: Literal["table"] = "table"


@dataclass(frozen=True)
class Press:
    label: str
    path: Path
    value: Any
    """The JSON the press puts at `path`; with `op` "append" added to the list there, with
    "remove" the list's item at that index taken out."""
    op: Literal["put", "append", "remove"] = "put"
    disabled: bool = False
    name: str = ""
    type: Literal["press"] = "press"


@dataclass(frozen=True)
class Visit:
    """What opening the step writes, not an undo step of its own (a rows step's `visited`,
    which adds its counted rows)."""

    path: Path
    value: Any
    type: Literal["visit"] = "visit"


@dataclass(frozen=True)
class Fact:
    label: str
    value: str
    mark: str = ""
    """`key:value`: the page marks the value `data-key="value"` (a score's total)."""
    type: Literal["fact"] = "fact"


Control = Choose | Number | Text | Pick | Flag | Count | Press | Fact | Note | Group | Table | Visit


@dataclass(frozen=True)
class Look:
    """What a step kind's view reads: the ruleset and its builder, the built result (its
    answers, card, pools and ledger), and the step's own result entry."""

    ruleset: Ruleset
    answers: Mapping[str, Any]
    card: Mapping[str, Any]
    entry: Mapping[str, Any] = field(default_factory=dict)
    pools: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    ledger: Sequence[Mapping[str, Any]] = ()
    steps: Sequence[Any] = ()
    """The builder's steps (a slot names the step it comes from)."""

    def answer(self, step_id: str) -> Mapping[str, Any]:
        steps = self.answers.get("steps")
        found = steps.get(step_id) if isinstance(steps, Mapping) else None
        return found if isinstance(found, Mapping) else {}

    def label(self, name: str, catalog: str | None = None) -> str:
        """How the player knows an id: an entry of `catalog`, a sheet skill, save, ability or
        field, else an entry of any catalog, else the id itself."""
        catalogs = self.ruleset.catalog_models
        for entry in next((c.entries or () for c in catalogs if c.id == catalog), ()):
            if entry.id == name:
                return entry.label
        sheet = self.ruleset.sheet
        for thing in (*sheet.skills, *sheet.saves, *sheet.abilities, *sheet.fields):
            if thing.id == name:
                return getattr(thing, "label", None) or name
        for each in catalogs:
            for entry in each.entries or ():
                if entry.id == name:
                    return entry.label
        return name

    def ref_label(self, ref: str) -> str:
        """An item reference's label (`<catalog>/<entry>`)."""
        catalog, _, name = ref.partition("/")
        return self.label(name, catalog) if name else ref

    def summary(self, name: str, catalog: str | None) -> str:
        for each in self.ruleset.catalog_models:
            if each.id == catalog:
                for entry in each.entries or ():
                    if entry.id == name:
                        return entry.summary or ""
        return ""

    def field_now(self, name: str) -> Any:
        fields = self.card.get("fields")
        return fields.get(name) if isinstance(fields, Mapping) else None

    def reasons(self) -> dict[str, str]:
        """Why each inactive answer of the step is kept but not counted."""
        return {
            str(i.get("answer")): str(i.get("reason", ""))
            for i in self.entry.get("inactive") or ()
            if isinstance(i, Mapping)
        }

    def values(self) -> SheetValues:
        """The built card, read as play reads it (scores, modifiers)."""
        return SheetValues(self.ruleset, CharacterCard.model_validate(dict(self.card)), None)

    def tier_label(self, tier: Any) -> str:
        tiers = self.ruleset.resolution_common.proficiency_tiers
        return next((t.label for t in tiers if t.id == tier), str(tier))

    def target_value(self, key: str) -> str:
        """What the card holds for a target key (`ability/str`): a number, a tier's label."""
        kind, _, name = key.partition("/")
        holder = _HOLDERS.get(kind)
        found = self.card.get(holder) if holder is not None else None
        value = found.get(name) if isinstance(found, Mapping) else None
        if value is None:
            return "—"
        if kind in ("skill", "save"):
            return self.tier_label(value.get("tier") if isinstance(value, Mapping) else value)
        return str(value)

    def pool_line(self, pool_id: str | None) -> list[Control]:
        """A creation pool as it stands: spent, budget, credit, what is left."""
        pool = self.pools.get(pool_id) if pool_id is not None else None
        if pool is None:
            return []
        credit = f" (+{pool['credit']} credit)" if pool.get("credit") else ""
        text = f"{pool['spent']} of {pool['budget']} spent{credit}, {pool['remaining']} left"
        tone: Literal["points", "over"] = "over" if pool["remaining"] < 0 else "points"
        return [Note(text, tone, pool=str(pool_id))]


_HOLDERS = {
    "ability": "abilities",
    "skill": "skills",
    "save": "saves",
    "field": "fields",
    "bonus": "bonuses",
}
"""Where a card holds each kind of target."""


def at(document: Any, path: Path) -> Any:
    """The value at `path` in an answers document (None when absent)."""
    here: Any = document
    for key in path:
        if isinstance(key, int) and isinstance(here, list) and 0 <= key < len(here):
            here = here[key]
        elif isinstance(key, str) and isinstance(here, Mapping):
            here = here.get(key)
        else:
            return None
    return here


def _holder(document: dict[str, Any], parents: Sequence[str | int]) -> Any:
    """The object at `parents`, objects made on the way; None when a list or an index on
    the way is not there."""
    holder: Any = document
    for place, key in enumerate(parents):
        if isinstance(key, int):
            if not isinstance(holder, list) or not 0 <= key < len(holder):
                return None
            holder = holder[key]
            continue
        if not isinstance(holder, dict):
            return None
        inner = holder.get(key)
        if place + 1 < len(parents) and isinstance(parents[place + 1], int):
            if not isinstance(inner, list):
                return None
        elif not isinstance(inner, dict):
            inner = holder[key] = {}
        holder = inner
    return holder


def change(document: dict[str, Any], control: Control, value: Any) -> None:
    """Apply `control` used with `value` to the answers `document` in place (module doc):
    a `Choose` takes the option's value, a `Count` the step (+1 or -1), a `Press` its own,
    the others the value given (None drops the key)."""
    if isinstance(control, Fact | Note | Group | Table):
        return
    if isinstance(control, Visit):
        change(document, Press("", control.path, control.value), None)
        return
    *parents, last = control.path
    holder = _holder(document, parents)
    if not isinstance(holder, dict) or not isinstance(last, str):
        return
    had = holder.get(last)
    if isinstance(control, Choose):
        chosen = [v for v in had if isinstance(v, str)] if isinstance(had, list) else []
        if value is None:
            chosen = []
        elif value in chosen:
            chosen.remove(value)
        elif control.single:
            chosen = [value]
        else:
            chosen.append(value)
        holder[last] = chosen
        return
    if isinstance(control, Count):
        now = had if isinstance(had, int) and not isinstance(had, bool) else 0
        new: Any = now + (value if isinstance(value, int) else 0) or None
    elif isinstance(control, Press) and control.op == "append":
        new = [*(had if isinstance(had, list) else []), control.value]
    elif isinstance(control, Press) and control.op == "remove":
        new = list(had) if isinstance(had, list) else []
        if isinstance(control.value, int) and 0 <= control.value < len(new):
            del new[control.value]
    else:
        new = control.value if isinstance(control, Press) else value
    if new is None:
        holder.pop(last, None)
    else:
        holder[last] = new
    more: tuple[tuple[Path, Any], ...] = getattr(control, "also", ())
    if isinstance(control, Pick):
        more += next((writes for v, writes in control.then if v == value), ())
    for path, extra in more:
        change(document, Press("", path, extra), None)


def flat(controls: Sequence[Control]) -> Iterator[Control]:
    """The controls in order, a group's in its place."""
    for control in controls:
        if isinstance(control, Group):
            yield control
            yield from flat(control.controls)
        elif isinstance(control, Table):
            yield control
            for row in control.rows:
                yield from flat(row)
        else:
            yield control


def _writes(items: Any) -> tuple[tuple[Path, Any], ...]:
    return tuple((tuple(path), value) for path, value in items)


def read_control(data: Mapping[str, Any]) -> Control:
    """A control from its JSON (`as_json`'s shape): what a test holds the page's edits to."""
    kinds: dict[str, Any] = {
        "choose": Choose, "number": Number, "text": Text, "pick": Pick, "flag": Flag,
        "count": Count, "press": Press, "fact": Fact, "note": Note, "group": Group,
        "table": Table, "visit": Visit,
    }  # fmt: skip
    fields = {key: value for key, value in data.items() if key != "type"}
    if "path" in fields:
        fields["path"] = tuple(fields["path"])
    if "options" in fields:
        fields["options"] = tuple(Option(**{**o, "details": tuple(o.get("details", ()))})
                                  for o in fields["options"])  # fmt: skip
    if "choices" in fields:
        fields["choices"] = tuple(tuple(choice) for choice in fields["choices"])
    if "also" in fields:
        fields["also"] = _writes(fields["also"])
    if "then" in fields:
        fields["then"] = tuple((value, _writes(writes)) for value, writes in fields["then"])
    if "controls" in fields:
        fields["controls"] = tuple(read_control(c) for c in fields["controls"])
    if "rows" in fields:
        fields["rows"] = tuple(tuple(read_control(c) for c in row) for row in fields["rows"])
    for key in ("columns", "off"):
        if key in fields:
            fields[key] = tuple(fields[key])
    control: Control = kinds[str(data["type"])](**fields)
    return control


def as_json(controls: Sequence[Control]) -> list[dict[str, Any]]:
    """The controls as the page reads them (tuples as lists): `dataclasses.asdict`'s shape,
    without its deep copies (the values are the build's, read once)."""
    return [_json(control) for control in controls]


_NAMES: dict[type, tuple[str, ...]] = {}


def _json(value: Any) -> Any:
    kind = type(value)
    if kind in (str, int, float, bool) or value is None:
        return value
    if kind is tuple or kind is list:
        return [_json(item) for item in value]
    if kind is dict:
        return {key: _json(item) for key, item in value.items()}
    names = _NAMES.get(kind)
    if names is None:
        names = _NAMES[kind] = tuple(f.name for f in dataclasses.fields(value))
    return {name: _json(getattr(value, name)) for name in names}


__all__ = [
    "Choose",
    "Control",
    "Count",
    "Fact",
    "Flag",
    "Group",
    "Look",
    "Note",
    "Number",
    "Option",
    "Path",
    "Pick",
    "Press",
    "Table",
    "Text",
    "Visit",
    "as_json",
    "at",
    "change",
    "flat",
    "read_control",
]
