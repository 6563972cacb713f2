"""The `startingGear` step's view (004, "Equipo inicial"): the kits that fit, each with its
lines, to take. What it does in the walk is `run` below."""

from __future__ import annotations

from dataclasses import dataclass

from gmtags.builder import coins
from gmtags.builder.controls import Choose, Control, Look, Option
from gmtags.builder.state import Finished, State
from gmtags.ruleset.builder.steps import KitLine, StartingGearStep
from gmtags.sheet.values import SheetValues


def line_text(look: Look, line: KitLine, values: SheetValues | None = None) -> str:
    """A kit line as the player reads it: "2 × Dagger", "4d4 × 10 gp", "10 gp" (a count read
    from the sheet, as the build reads it: `coins.read_coins`)."""
    if line.item is not None:
        count = f"{line.count} × " if line.count is not None and line.count > 1 else ""
        return count + look.ref_label(str(line.item))
    if line.count_from is not None:
        return f"{coins.read_coins(values or look.values(), line)} {line.coins}"
    amount = line.roll or (str(line.count) if line.count is not None else "")
    times = f" × {line.times}" if line.times else ""
    return f"{amount}{times} {line.coins}".strip()


def view(look: Look, step: StartingGearStep) -> list[Control]:
    kits = list(look.answer(step.id).get("kits") or [])
    offered = look.entry.get("offered") or []
    reasons = look.reasons()
    read = any(line.count_from for kit in step.kits for line in kit.lines)
    values = look.values() if read else None
    options = tuple(
        Option(
            kit.id,
            kit.label,
            kit.summary or "",
            chosen=kit.id in kits,
            reason=reasons.get(kit.id, ""),
            details=tuple(line_text(look, line, values) for line in kit.lines),
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


@dataclass(frozen=True)
class UnfitKits:
    """A strict startingGear step's gate: the kits whose `fits` the finished sheet fails."""

    ids: frozenset[str]


def gate(done: Finished, step: StartingGearStep) -> UnfitKits | None:
    if not step.strict:
        return None
    unfit = frozenset(
        kit.id
        for kit in step.kits
        if kit.fits is not None and not done.values.value(kit.fits.value) >= kit.fits.at_least
    )
    return UnfitKits(unfit) if unfit else None


def run(state: State, step: StartingGearStep) -> None:
    entry = state.blank_entry(step.id, step.kind)
    gated = state.gates.of(step.id, UnfitKits)
    unfit = gated.ids if gated is not None else frozenset()
    kits = {kit.id: kit for kit in step.kits}
    entry["offered"] = [k for k in kits if k not in unfit]
    taken: list[str] = []
    for kit_id in state.answers.step(step.id).kits or []:
        if kit_id not in kits:
            entry["inactive"].append({"answer": kit_id, "reason": "not a kit of this step"})
        elif kit_id in unfit:
            entry["inactive"].append({"answer": kit_id, "reason": "does not fit the sheet"})
        elif kit_id in taken:
            entry["inactive"].append({"answer": kit_id, "reason": "already taken"})
        else:
            taken.append(kit_id)
    for kit_id in taken:
        for line in kits[kit_id].lines:
            if line.item is not None:
                state.writer.item({"ref": line.item, "count": line.count or 1, "_kit": kit_id})
        coins.take_coins(state, step.id, kit_id, list(kits[kit_id].lines))
    if taken:
        state.kits[step.id] = taken
    entry["active"] = taken
    state.waits(entry, int(not taken and bool(entry["offered"])))
