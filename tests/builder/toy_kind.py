"""A step kind of the tests' own, whole in this one file: `oath`, the player swears one of
the step's oaths and the build writes its words into a text field.

    {"id": "oath", "label": "Oath", "kind": "oath", "field": "oath",
     "oaths": [{"id": "honour", "label": "By my honour"}, ...]}

Its model (with its own shape rule and its reference to the sheet), what runs it in the
walk and its view are below; `register(OATH)` makes it a step kind of the ruleset model, the
builder, the command line, the wizard and the page (`test_toy_kind.py`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from gmtags.builder.controls import Choose, Control, Look, Option
from gmtags.builder.state import State
from gmtags.builder.steps import StepKind
from gmtags.ruleset.base import RulesetModel, SheetId
from gmtags.ruleset.builder.common import Label, StepBase
from gmtags.ruleset.sheet import TextField


class Oath(RulesetModel):
    id: SheetId
    label: Label


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


def run(state: State, step: OathStep) -> None:
    """The latest pick that is one of the step's oaths counts; it writes its words."""
    entry = state.blank_entry(step.id, step.kind)
    entry["offered"] = [oath.id for oath in step.oaths]
    by_id = {oath.id: oath for oath in step.oaths}
    picks = list(state.answers.step(step.id).picks or [])
    sworn = [pick for pick in picks if pick in by_id][-1:]
    for pick in picks:
        if pick not in by_id:
            entry["inactive"].append({"answer": pick, "reason": "not an oath of this step"})
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


OATH = StepKind("oath", OathStep, run, view)
