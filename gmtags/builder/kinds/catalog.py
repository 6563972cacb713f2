"""The `catalog` step's view (004, "Pasos de catálogo"): its entries to pick, as the sheet
offers them now, with the pool it pays from. What the step does in the walk is
`gmtags.builder.steps.Walk._catalog`."""

from __future__ import annotations

from gmtags.builder.controls import Choose, Control, Look, Option
from gmtags.ruleset.builder.steps import CatalogStep


def ask(step: CatalogStep) -> tuple[str, bool, int | None]:
    """What the step asks ("Choose one", "Choose 2 to 4", …), whether it takes one pick,
    and the most it takes (None: as many as the sheet allows)."""
    single = step.count_from is None and (step.max or 1) == 1
    most = None if step.count_from is not None else step.max or 1
    if step.count_from is not None:
        return "Choose as many as the sheet allows", False, None
    if single:
        return ("Choose one" if step.min else "Choose one, or none"), True, 1
    span = str(most) if step.min == most else f"{step.min} to {most}"
    return f"Choose {span}", False, most


def view(look: Look, step: CatalogStep) -> list[Control]:
    picks = list(look.answer(step.id).get("picks") or [])
    ids = [
        *look.entry.get("offered", []),
        *(p for p in picks if p not in look.entry.get("offered", [])),
    ]
    reasons = look.reasons()
    label, single, most = ask(step)
    options = tuple(
        Option(
            str(i),
            look.label(str(i), step.catalog),
            look.summary(str(i), step.catalog),
            chosen=i in picks,
            reason=reasons.get(str(i), ""),
        )
        for i in ids
    )
    empty = "Nothing to choose here yet: an earlier step decides what this one offers."
    return [
        *look.pool_line(step.pool),
        Choose(
            label,
            ("steps", step.id, "picks"),
            options,
            single=single,
            clearable=single and not step.min,
            most=most,
            name=f"pick-{step.id}",
            empty=empty,
            about=step.label,
        ),
    ]
