"""The `startingGear` step's view (004, "Equipo inicial"): the kits that fit, each with its
lines, to take. What the step does in the walk is `gmtags.builder.steps.Walk._gear`."""

from __future__ import annotations

from gmtags.builder.controls import Choose, Control, Look, Option
from gmtags.ruleset.builder.steps import KitLine, StartingGearStep


def line_text(look: Look, line: KitLine) -> str:
    """A kit line as the player reads it: "2 × Dagger", "4d4 × 10 gp"."""
    if line.item is not None:
        count = f"{line.count} × " if line.count is not None and line.count > 1 else ""
        return count + look.ref_label(str(line.item))
    amount = line.roll or (str(line.count) if line.count is not None else "")
    times = f" × {line.times}" if line.times else ""
    return f"{amount}{times} {line.coins}".strip()


def view(look: Look, step: StartingGearStep) -> list[Control]:
    kits = list(look.answer(step.id).get("kits") or [])
    offered = look.entry.get("offered") or []
    reasons = look.reasons()
    options = tuple(
        Option(
            kit.id,
            kit.label,
            kit.summary or "",
            chosen=kit.id in kits,
            reason=reasons.get(kit.id, ""),
            details=tuple(line_text(look, line) for line in kit.lines),
        )
        for kit in step.kits
        if kit.id in offered or kit.id in kits
    )
    empty = "No starting gear fits this character; Next still works."
    return [
        Choose(
            "Take a kit", ("steps", step.id, "kits"), options, single=False, name="kit", empty=empty
        )
    ]
