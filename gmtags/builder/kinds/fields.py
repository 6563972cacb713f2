"""The `fields` step's view (004, "Campos"): one control per field it shows, each by the
field's type, with the cap its `total` puts on a sum. What it does in the walk is `run`,
and once every step has run, `pending`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gmtags.builder.card import read
from gmtags.builder.controls import Control, Flag, Look, Note, Number, Pick, Text
from gmtags.builder.state import Entry, Finished, State
from gmtags.ruleset.builder.steps import FieldsStep
from gmtags.ruleset.model import Ruleset
from gmtags.sheet.holds import value_problem


def field_control(
    ruleset: Ruleset, name: str, path: tuple[str | int, ...], value: Any, label: str, key: str
) -> Control:
    """A control for a sheet field (or a list column) `name`, by its type."""
    shape: Any = next((f for f in ruleset.sheet.fields if f.id == name), None)
    return typed_control(shape, path, value, label, key)


def typed_control(
    shape: Any, path: tuple[str | int, ...], value: Any, label: str, key: str
) -> Control:
    """A control for a value of `shape` (a field or a column; None: text)."""
    kind = getattr(shape, "type", "text")
    if kind == "enum":
        labels = getattr(shape, "value_labels", None) or {}
        choices = tuple((v, str(labels.get(str(v), v))) for v in shape.values)
        return Pick(label, path, choices, value, name=key)
    if kind == "boolean":
        return Flag(label, path, value if isinstance(value, bool) else None, name=key)
    if kind == "number":
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        low, high = getattr(shape, "min", None), getattr(shape, "max", None)
        low = low if isinstance(low, int | float) else None
        high = high if isinstance(high, int | float) else None
        return Number(label, path, number, low, high, name=key, whole=False)
    text = "" if value is None else str(value)
    most = getattr(shape, "max_length", None)
    return Text(label, path, text, name=key, long=kind == "longtext", most=most)


def view(look: Look, step: FieldsStep) -> list[Control]:
    shown = look.entry.get("offered") or step.fields
    optional = set(step.optional or ())
    given = look.answer(step.id).get("fields") or {}
    controls: list[Control] = []
    for name in step.fields:
        if name not in shown:
            continue
        value = given[name] if name in given else look.field_now(name)
        label = look.label(name) + (" (optional)" if name in optional else "")
        path = ("steps", step.id, "fields", name)
        controls.append(field_control(look.ruleset, name, path, value, label, f"field-{name}"))
    if step.total is not None:
        controls.append(Note(f"Together at most {step.total.max}"))
    return controls


def run(state: State, step: FieldsStep) -> None:
    entry = state.blank_entry(step.id, step.kind)
    shapes = {f.id: f for f in state.ruleset.sheet.fields}
    given = state.answers.step(step.id).fields or {}
    for name, value in given.items():
        shape = shapes.get(name)
        if name not in step.fields or shape is None:
            state.problem(f"steps.{step.id}.fields.{name}", "not a field of this step")
        elif value_problem(shape, value) is not None:  # what a save refuses (SPEC §11)
            state.problem(f"steps.{step.id}.fields.{name}", f"does not fit field '{name}'")
        else:
            state.writer.write(f"fields.{name}", value)
    entry["offered"] = list(step.fields)


@dataclass(frozen=True)
class HiddenFields:
    """A fields step's gate: the fields its `shownWhen` hides on the finished sheet."""

    names: frozenset[str]


def gate(done: Finished, step: FieldsStep) -> HiddenFields | None:
    hidden = frozenset(
        name for name, ref in (step.shown_when or {}).items() if not done.values.value(ref) > 0
    )
    return HiddenFields(hidden) if hidden else None


def pending(state: State, step: FieldsStep, entry: Entry) -> None:
    """004: the badge counts the empty fields not in `optional`, shown (`shownWhen`), plus
    one while a `total` is exceeded."""
    gated = state.gates.of(step.id, HiddenFields)
    hidden = gated.names if gated is not None else frozenset()
    optional = set(step.optional or ())
    shown = [name for name in step.fields if name not in hidden]
    filled = [n for n in shown if read(state.writer.base, f"fields.{n}") not in (None, "")]
    entry["active"] = filled
    state.waits(entry, sum(1 for n in shown if n not in optional and n not in filled))
    if step.total is not None:
        numbers = [read(state.writer.base, f"fields.{n}") for n in step.total.fields]
        total = sum(n for n in numbers if isinstance(n, int | float) and not isinstance(n, bool))
        if total > step.total.max:
            entry["pending"] += 1
            entry["reasons"].append(f"together at most {step.total.max} (now {total})")
