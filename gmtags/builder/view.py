"""The views of a build: for each step whose kind gives one (`StepKind.view`), the controls
a player uses it by (`gmtags.builder.controls`), made once from a finished build, followed by
the entry choices the step shows (one `Choose` per slot, whatever the kind).

The builder page asks for them with its build (`"view": true`) and draws those steps from
them alone; the terminal wizard prints the same views (`gmtags.builder.wizard_view`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gmtags.builder.build import BuildResult
from gmtags.builder.controls import (
    Choose,
    Control,
    Count,
    Group,
    Look,
    Note,
    Option,
    Pick,
    Table,
    as_json,
    flat,
)
from gmtags.builder.party import party_of, party_view
from gmtags.builder.steps import KINDS
from gmtags.ruleset.builder import Builder
from gmtags.ruleset.model import Ruleset

_NUMBERED = re.compile(r"choose\.\d+")


def step_view(
    ruleset: Ruleset, builder: Builder, result: BuildResult, step_id: str
) -> list[Control] | None:
    """The controls of step `step_id`, or None when its kind gives no view."""
    step = next((s for s in builder.steps if s.id == step_id), None)
    kind = KINDS.get(step.kind) if step is not None else None
    if step is None or kind is None:
        return None
    entry: Mapping[str, Any] = next((e for e in result.steps if e["id"] == step_id), {})
    look = Look(
        ruleset, result.answers, result.card, entry, result.pools, result.ledger, builder.steps
    )
    if kind.view is not None:
        controls = list(kind.view(look, step))
    else:
        controls = [Note("This step has no controls of its own here: All fields edits the card.")]
    if not kind.says_reasons:
        controls[:0] = [Note(str(reason), "reason") for reason in entry.get("reasons") or ()]
    catalog = getattr(step, "catalog", None) if step.kind == "choices" else None
    controls += [slot_control(look, slot, catalog) for slot in entry.get("choices") or ()]
    kept = _kept(look, controls)
    if kept:
        controls.append(Group("Kept, not counted", tuple(kept)))
    return controls


def _kept(look: Look, controls: list[Control]) -> list[Control]:
    """A line for each answer the step keeps but does not count, that no option of the view
    already shows with its reason: what it is, as the view names it, and why."""
    shown = {
        o.value for c in flat(controls) if isinstance(c, Choose) for o in c.options if o.reason
    }
    labels: dict[str, str] = {}
    for control in flat(controls):
        if isinstance(control, Choose):
            labels.update({o.value: o.label for o in control.options})
        elif isinstance(control, Pick):
            labels.update({str(v): label for v, label in control.choices})
        elif isinstance(control, Count):
            labels[str(control.path[-1])] = control.label
    rows = any(isinstance(c, Table) and c.off for c in flat(controls))
    lines: list[Control] = []
    for item in look.entry.get("inactive") or ():
        answer = str(item.get("answer"))
        if answer in shown or (rows and answer.isdigit()):
            continue
        label = labels.get(answer) or look.label(answer)
        lines.append(Note(f"{label}: {item.get('reason', '')}", "warn"))
    return lines


def slot_control(look: Look, slot: Mapping[str, Any], catalog: str | None) -> Choose:
    """An entry choice the step shows: its options, what is chosen, why any is not counted."""
    key = str(slot["key"])
    chosen = (look.answers.get("choices") or {}).get(key) or []
    values = [*slot["offered"], *(v for v in chosen if v not in slot["offered"])]
    reasons = {str(i["answer"]): str(i["reason"]) for i in slot.get("inactive") or ()}
    options = tuple(
        Option(
            str(v),
            look.label(str(v), catalog),
            chosen=v in chosen,
            reason=reasons.get(str(v), ""),
        )
        for v in values
    )
    count = int(slot["count"])
    title = _slot_title(look, key, count) + (
        f" ({slot['pending']} to go)" if slot.get("pending") else ""
    )
    return Choose(
        title,
        ("choices", key),
        options,
        single=count == 1,
        most=None if count == 1 else count,
        name=f"choice-{key}",
    )


def _slot_title(look: Look, key: str, count: int) -> str:
    """Where a slot comes from, as the player knows it: the step, the entry, the choice."""
    parts = key.split("/")
    source = next((s for s in look.steps if s.id == parts[0]), None)
    title = source.label if source is not None else parts[0]
    if len(parts) >= 3 and parts[1] != "replacement":
        title += " · " + look.label(parts[1], getattr(source, "catalog", None))
    elif len(parts) > 1 and parts[1] and not _NUMBERED.fullmatch(parts[1]):
        title += " · " + parts[1].replace("_", " ")
    if key.endswith("/replacement"):
        title += " (replacement)"
    return f"{title}: choose {count}"


def _built_by(ruleset: Ruleset, party: bool) -> tuple[Ruleset, Builder | None]:
    """The ruleset a build reads and its builder: the character's, or with `party` the
    party sheet's (`gmtags.builder.party`)."""
    if party:
        return party_view(ruleset), party_of(ruleset).builder_model
    return ruleset, ruleset.sheet.builder_model


def views(
    ruleset: Ruleset, result: BuildResult, party: bool = False
) -> dict[str, list[dict[str, Any]]]:
    """Every viewed step's controls as JSON, by step id (module doc), of the character
    builder or, with `party`, the party sheet's."""
    ruleset, builder = _built_by(ruleset, party)
    if builder is None:
        return {}
    found: dict[str, list[dict[str, Any]]] = {}
    for step in builder.steps:
        controls = step_view(ruleset, builder, result, step.id)
        if controls is not None:
            found[step.id] = as_json(controls)
    return found


def holds(ruleset: Ruleset, result: BuildResult, party: bool = False) -> dict[str, str]:
    """What the character so far shows in place of each part of the sheet a step has not
    made yet (`StepKind.holds`), by part: `{"scores": "Not chosen yet: …"}`."""
    ruleset, builder = _built_by(ruleset, party)
    found: dict[str, str] = {}
    for step in builder.steps if builder is not None else ():
        kind = KINDS.get(step.kind)
        if kind is None or kind.holds is None:
            continue
        entry: Mapping[str, Any] = next((e for e in result.steps if e["id"] == step.id), {})
        look = Look(ruleset, result.answers, result.card, entry, result.pools, result.ledger)
        found.update(kind.holds(look, step))
    return found


__all__ = ["holds", "slot_control", "step_view", "views"]
