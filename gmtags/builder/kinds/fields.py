"""The `fields` step's view (004, "Campos"): one control per field it shows, each by the
field's type, with the cap its `total` puts on a sum. What the step does in the walk is
`gmtags.builder.steps.Walk._fields`."""

from __future__ import annotations

from typing import Any

from gmtags.builder.controls import Control, Flag, Look, Note, Number, Pick, Text
from gmtags.ruleset.builder.steps import FieldsStep
from gmtags.ruleset.model import Ruleset


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
