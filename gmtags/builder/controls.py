"""A step's view: the controls a player uses on it, as plain data (SPEC §10's answers are
what they change).

A step kind that gives a view (`gmtags.builder.steps.StepKind.view`) is drawn from it alone:
the terminal wizard prints it (`gmtags.builder.wizard_view`) and the builder page renders it
(`gmtags/server/static/builder/builder-view.js`), neither knowing the kind. Each control names the
place in the answers document it changes (`path`, from the document's root) and how:

- `Choose`: options; a pick toggles its value in the list at `path`, or, with `single`,
  makes the list that value alone (`clearable`: "None" empties it);
- `Number` / `Text`: the value typed replaces the one at `path` (an empty one drops it);
- `Press`: a button that puts `value` at `path` (a Set, a Roll again);
- `Fact`: a line to read, changing nothing.

`change` applies a control's edit to an answers document the same way everywhere, so the
page and the wizard cannot disagree about what a control does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from gmtags.ruleset.model import Ruleset

Path = tuple[str, ...]
"""Keys from the answers document's root: `("steps", "oath", "picks")`."""


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


@dataclass(frozen=True)
class Choose:
    label: str
    path: Path
    options: tuple[Option, ...]
    single: bool = True
    clearable: bool = False
    type: Literal["choose"] = "choose"


@dataclass(frozen=True)
class Number:
    label: str
    path: Path
    value: int | None = None
    low: int | None = None
    high: int | None = None
    type: Literal["number"] = "number"


@dataclass(frozen=True)
class Text:
    label: str
    path: Path
    value: str = ""
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class Press:
    label: str
    path: Path
    value: Any
    """The JSON the press puts at `path`."""
    type: Literal["press"] = "press"


@dataclass(frozen=True)
class Fact:
    label: str
    value: str
    type: Literal["fact"] = "fact"


Control = Choose | Number | Text | Press | Fact


@dataclass(frozen=True)
class Look:
    """What a step kind's view reads: the ruleset, the built result's answers and card, and
    the step's own result entry."""

    ruleset: Ruleset
    answers: Mapping[str, Any]
    card: Mapping[str, Any]
    entry: Mapping[str, Any] = field(default_factory=dict)

    def answer(self, step_id: str) -> Mapping[str, Any]:
        steps = self.answers.get("steps")
        found = steps.get(step_id) if isinstance(steps, Mapping) else None
        return found if isinstance(found, Mapping) else {}

    def label(self, name: str) -> str:
        """A sheet field's or ability's label, else `name`."""
        sheet = self.ruleset.sheet
        for thing in (*sheet.fields, *sheet.abilities):
            if thing.id == name:
                return getattr(thing, "label", None) or name
        return name

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


def at(document: Mapping[str, Any], path: Path) -> Any:
    """The value at `path` in an answers document (None when absent)."""
    here: Any = document
    for key in path:
        if not isinstance(here, Mapping):
            return None
        here = here.get(key)
    return here


def change(document: dict[str, Any], control: Control, value: Any) -> None:
    """Apply `control` used with `value` to the answers `document` in place (module doc):
    a `Choose` takes the option's value, a `Number` or `Text` the typed one (None drops the
    key), a `Press` its own."""
    if isinstance(control, Fact):
        return
    *parents, last = control.path
    holder = document
    for key in parents:
        inner = holder.get(key)
        if not isinstance(inner, dict):
            inner = holder[key] = {}
        holder = inner
    if isinstance(control, Choose):
        had = holder.get(last)
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
    new = control.value if isinstance(control, Press) else value
    if new is None:
        holder.pop(last, None)
    else:
        holder[last] = new


def as_json(controls: Sequence[Control]) -> list[dict[str, Any]]:
    """The controls as the page reads them (paths as lists)."""
    return [dataclasses.asdict(control) for control in controls]


__all__ = [
    "Choose",
    "Control",
    "Fact",
    "Look",
    "Number",
    "Option",
    "Path",
    "Press",
    "Text",
    "as_json",
    "at",
    "change",
]
