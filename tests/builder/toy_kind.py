"""A step kind of the tests' own, whole in this one file: `oath`, the player swears one of
the step's oaths and the build writes its words into a text field.

    {"id": "oath", "label": "Oath", "kind": "oath", "field": "oath",
     "oaths": [{"id": "honour", "label": "By my honour"},
               {"id": "blood", "label": "By blood", "needs": "retainers"}, ...]}

An oath that `needs` a list is offered while the finished character has a row in it (one a
later step adds counts): the kind's gate reads the finished sheet and the build is made again
with what it decides. Its model (with its own shape rule and its references to the sheet),
what runs it in the walk, its gate and its view are below; `register(OATH)` makes it a step
kind of the ruleset model, the builder, the command line, the wizard and the page
(`test_toy_kind.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from gmtags.builder.controls import Choose, Control, Look, Option
from gmtags.builder.state import Finished, State
from gmtags.builder.steps import StepKind
from gmtags.ruleset.base import RulesetModel, SheetId
from gmtags.ruleset.builder.common import Label, StepBase
from gmtags.ruleset.sheet import TextField


class Oath(RulesetModel):
    id: SheetId
    label: Label
    needs: SheetId | None = None


class OathStep(StepBase):
    kind: Literal["oath"]
    field: SheetId
    oaths: Annotated[list[Oath], Field(min_length=1, max_length=12)]

    def rules(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Each oath's id is its own."""
        ids = [oath.id for oath in self.oaths]
        return [(("oaths",), "two oaths share an id")] if len(set(ids)) < len(ids) else []

    def check_refs(self, check: Any, at: str) -> None:
        """The field sworn into is a text field of the sheet."""
        if not isinstance(check.index.fields.get(self.field), TextField):
            check.add(f"{at}.field", f"'{self.field}' is not a text field of the sheet")
        lists = {shape.id for shape in check.ruleset.sheet.lists}
        for n, oath in enumerate(self.oaths):
            if oath.needs is not None and oath.needs not in lists:
                check.add(f"{at}.oaths.{n}.needs", f"'{oath.needs}' is not a list of the sheet")


@dataclass(frozen=True)
class Unsworn:
    """The oath step's gate: the oaths the finished character cannot swear, with why."""

    oaths: Mapping[str, str]


def gate(done: Finished, step: OathStep) -> Unsworn | None:
    """An oath that needs a list the finished card has no row in is not offered."""
    lists = done.state.writer.base.get("lists") or {}
    closed = {
        o.id: f"needs a row in {o.needs}" for o in step.oaths if o.needs and not lists.get(o.needs)
    }
    return Unsworn(closed) if closed else None


def run(state: State, step: OathStep) -> None:
    """The latest pick that is one of the step's oaths counts; it writes its words."""
    entry = state.blank_entry(step.id, step.kind)
    gated = state.gates.of(step.id, Unsworn)
    closed = gated.oaths if gated is not None else {}
    entry["offered"] = [oath.id for oath in step.oaths if oath.id not in closed]
    by_id = {oath.id: oath for oath in step.oaths}
    picks = list(state.answers.step(step.id).picks or [])
    sworn = [pick for pick in picks if pick in by_id and pick not in closed][-1:]
    for pick in picks:
        if pick not in by_id:
            entry["inactive"].append({"answer": pick, "reason": "not an oath of this step"})
        elif pick in closed:
            entry["inactive"].append({"answer": pick, "reason": closed[pick]})
        elif pick not in sworn:
            entry["inactive"].append({"answer": pick, "reason": "replaced by a later oath"})
    if sworn:
        state.writer.write(f"fields.{step.field}", by_id[sworn[0]].label)
        entry["active"] = sworn
    else:
        state.waits(entry, 1)


def view(look: Look, step: OathStep) -> list[Control]:
    """One oath to choose."""
    active = look.entry.get("active") or []
    reasons = look.reasons()
    options = tuple(
        Option(oath.id, oath.label, chosen=oath.id in active, reason=reasons.get(oath.id, ""))
        for oath in step.oaths
    )
    return [Choose("Swear one oath", ("steps", step.id, "picks"), options, single=True)]


OATH = StepKind("oath", OathStep, run, view, gate=gate)
