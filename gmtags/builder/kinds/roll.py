"""The `roll` step (004, "Tiradas de creación conservadas con sus dados", 1.162; BUILDER
F4–F9): creation rolls written to a numeric field or an ability.

004: "Un paso de kind: "roll" enumera hasta 12 rolls, cada una escrita en un field numérico:
Luck, puntos de golpe, dinero inicial. best (2 o 3) tira esa cantidad de veces y conserva la
mejor; floor (un número o una Ref) es el mínimo que puede tener el resultado …; gain lo
convierte en cambio en una prueba de mejora, tirada contra el campo y que solo suma gain
cuando la tirada lo supera, como hace la mejora de EDU de CoC. Cada tirada se conserva con sus
caras y se muestra con ellas. Una tirada ya hecha se mantiene; reabrir el creador nunca vuelve
a tirar, y solo lo ofrece un paso con retry: true. Nunca se tira para un personaje que se
describe."

Each roll is the one in the answers (`rolls.<field or ability>`), else a new one from the
seed on its own stream (`gmtags.builder.dice.throw`: seed, step, roll, attempt, try), so the
order of answering never changes it (SPEC §10); what was thrown goes into `res.answers`. The
step's entry lists, under `rolls`, each roll's faces (every try's, for `best`), the faces
kept, the total and the value written.

Decisions where the sources are silent:
- An ability rolled without `gain` is that ability's base score (as an abilities step's
  method gives one: the picks' raises go on top), at the step's turn, its `floor` read on the
  sheet as the steps before it leave it. A field roll, and any roll with `gain`, is made once
  every step has run, reading the finished sheet (`floor`, and the value a `gain` check is
  rolled against), so the check beats the score as the character has it now.
- `gain` adds its number (or the total of its creation dice, a roll of its own kept under
  `<key>/gain`, thrown only when the check beats the value) on top of the value: the raise is
  written by the builder over the score, so rerolling or buying the score keeps it on top
  while the kept check still beats the new value. A check that does not beat it writes nothing.
- The result is at least `floor`, then within the target's limits (a field's `min`/`max`, an
  ability's); `floor` never lifts it past them.
- A raised `attempt` without `retry: true` is a problem; the roll is then the first attempt's
  (a recorded roll is read as recorded, never redrawn). Recorded faces that do not fit the
  dice, `tries` on a roll without `best` (or `faces` on one with it), more tries than `best`,
  are problems: that roll is neither read nor redrawn, and counts in the badge. Tries missing
  from a `best` roll are thrown from their own streams.
- `described: true` (the player's own word) rolls nothing and writes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gmtags.builder import dice as creation
from gmtags.builder.answers import RecordedRoll
from gmtags.builder.controls import Control, Fact, Look, Press
from gmtags.ruleset.builder.priced import Roll as RollModel
from gmtags.ruleset.builder.priced import RollStep
from gmtags.sheet.values import read_value

if TYPE_CHECKING:
    from gmtags.builder.state import Entry, State


def run(state: State, step: RollStep) -> None:
    """The step's rolls (module doc): ability base scores now, the others once every step
    has run."""
    entry = state.blank_entry(step.id, step.kind)
    entry["offered"] = [_key(roll) for roll in step.rolls]
    entry["rolls"] = {}
    if state.answers.described is True:
        entry["reasons"].append("a described character is not rolled for")
        return
    later: list[RollModel] = []
    for roll in step.rolls:
        if roll.ability is not None and roll.gain is None:
            _base_score(state, step, roll, entry)
        else:
            later.append(roll)

    def finish(state: State, by_id: dict[str, Entry]) -> None:
        for roll in later:
            _on_finished_sheet(state, step, roll, by_id[step.id])

    if later:
        state.later(step.id, finish)


def view(look: Look, step: RollStep) -> list[Control]:
    """Each roll's result and the faces it kept; with `retry`, a button to roll it again."""
    made = look.entry.get("rolls") or {}
    recorded = look.answer(step.id).get("rolls") or {}
    controls: list[Control] = []
    for roll in step.rolls:
        key = _key(roll)
        shown = made.get(key) or {}
        faces = shown.get("faces") or " / ".join(
            " ".join(map(str, t.get("faces", ()))) for t in shown.get("tries") or ()
        )
        if isinstance(faces, list):
            faces = " ".join(map(str, faces))
        result = "—" if shown.get("result") is None else str(shown["result"])
        controls.append(Fact(look.label(key), result + (f" (rolled {faces})" if faces else "")))
        if step.retry:
            attempt = (recorded.get(key) or {}).get("attempt", 0)
            path = ("steps", step.id, "rolls", key)
            label = f"Roll {look.label(key)} again"
            controls.append(Press(label, path, {"attempt": attempt + 1}, name=f"retry-{key}"))
    return controls


def _key(roll: RollModel) -> str:
    """A roll's key in the answers: its field or ability id (SPEC §10)."""
    return roll.field if roll.field is not None else str(roll.ability)


def made(
    state: State, step: RollStep, key: str, dice_model: Any, best: int | None
) -> tuple[creation.Roll, dict[str, Any]] | None:
    """The roll under `key`: the recorded one, else thrown from the seed; with what it shows
    (faces or tries). None, with a problem, when the recorded roll cannot be read."""
    dice = creation.Dice.of(dice_model)
    at = f"steps.{step.id}.rolls.{key}"
    recorded: RecordedRoll | None = (state.answers.step(step.id).rolls or {}).get(key)
    attempt = recorded.attempt if recorded is not None else 0
    if attempt and not step.retry:
        state.problem(f"{at}.attempt", "this step offers no retry: the first roll stands")
        attempt = 0
    if best is None:
        if recorded is not None and recorded.tries is not None:
            state.problem(f"{at}.tries", "this roll keeps its faces, not tries")
            return None
        faces = recorded.faces if recorded is not None else None
        if faces is not None:
            problem = creation.faces_problem(dice, faces)
            if problem is not None:
                state.problem(f"{at}.faces", problem)
                return None
            roll = creation.read_roll(dice, faces)
        else:
            roll = creation.throw(dice, state.seed, step.id, key, attempt)
        state.made_rolls.setdefault(step.id, {})[key] = {
            "faces": list(roll.faces),
            "attempt": attempt,
        }
        return roll, {"faces": list(roll.faces)}
    if recorded is not None and recorded.faces is not None:
        state.problem(f"{at}.faces", f"a best-of-{best} roll keeps its tries")
        return None
    kept = list(recorded.tries or []) if recorded is not None else []
    if len(kept) > best:
        state.problem(f"{at}.tries", f"a best-of-{best} roll has {best} tries")
        return None
    tries: list[creation.Roll] = []
    for trial in range(best):
        if trial < len(kept):
            problem = creation.faces_problem(dice, kept[trial].faces)
            if problem is not None:
                state.problem(f"{at}.tries.{trial}.faces", problem)
                return None
            tries.append(creation.read_roll(dice, kept[trial].faces))
        else:
            tries.append(creation.throw(dice, state.seed, step.id, key, attempt, trial))
    shown = [{"faces": list(t.faces)} for t in tries]
    state.made_rolls.setdefault(step.id, {})[key] = {"tries": shown, "attempt": attempt}
    return creation.best_of(tries), {"tries": shown}


def _floor(state: State, roll: RollModel) -> float | None:
    if roll.floor is None:
        return None
    if isinstance(roll.floor, int | float):
        return roll.floor
    return state.values().value(roll.floor)


def _shown(thrown: creation.Roll, faces: dict[str, Any], result: Any) -> dict[str, Any]:
    return {**faces, "kept": list(thrown.kept), "total": thrown.total, "result": result}


def _base_score(state: State, step: RollStep, roll: RollModel, entry: Entry) -> None:
    """An ability rolled without `gain`: its base score (module doc)."""
    name = str(roll.ability)
    ability = next((a for a in state.ruleset.sheet.abilities if a.id == name), None)
    if ability is None or ability.value is not None:
        entry["pending"] += 1
        entry["reasons"].append(f"'{name}' is not an ability that can be rolled")
        return
    thrown = made(state, step, name, roll.dice, roll.best)
    if thrown is None:
        entry["pending"] += 1
        return
    result: float = thrown[0].total
    low = _floor(state, roll)
    if low is not None:
        result = max(result, low)
    score = int(max(ability.min, min(ability.max, result)))
    state.base_scores = {**(state.base_scores or {}), name: score}
    entry["active"].append(name)
    entry["rolls"][name] = _shown(thrown[0], thrown[1], score)


def _on_finished_sheet(state: State, step: RollStep, roll: RollModel, entry: Entry) -> None:
    """A field roll or a `gain` check, read on the finished sheet (module doc)."""
    key = _key(roll)
    target = _target(state, roll)
    if target is None:
        entry["pending"] += 1
        entry["reasons"].append(f"'{key}' is not a number the builder can roll")
        return
    path, shape, now = target
    thrown = made(state, step, key, roll.dice, roll.best)
    if thrown is None:
        entry["pending"] += 1
        return
    check, faces = thrown
    result: float = check.total
    shown = _shown(check, faces, None)
    if roll.gain is not None:
        if not check.total > now:
            shown["result"] = int(now) if now.is_integer() else now
            entry["rolls"][key] = shown
            entry["active"].append(key)
            return
        if isinstance(roll.gain, int):
            gained: float = roll.gain
        else:
            rolled = made(state, step, f"{key}/gain", roll.gain, None)
            if rolled is None:
                entry["pending"] += 1
                return
            gained = rolled[0].total
            shown["gain"] = _shown(rolled[0], rolled[1], gained)
        result = now + gained
    low = _floor(state, roll)
    if low is not None:
        result = max(result, low)
    value = _within(shape, result)
    state.writer.write(path, value)
    shown["result"] = value
    entry["rolls"][key] = shown
    entry["active"].append(key)


def _target(state: State, roll: RollModel) -> tuple[str, Any, float] | None:
    """Where the roll writes, the shape that limits it and its value now (None when it names
    no numeric field and no ability that is not computed)."""
    sheet = state.ruleset.sheet
    if roll.field is not None:
        shape = next((f for f in sheet.fields if f.id == roll.field), None)
        if shape is None or shape.type != "number":
            return None
        path = f"fields.{roll.field}"
        read = read_value(shape, (state.writer.base.get("fields") or {}).get(roll.field))
        return path, shape, float(read if isinstance(read, int | float) else 0)
    ability = next((a for a in sheet.abilities if a.id == roll.ability), None)
    if ability is None or ability.value is not None:
        return None
    score = (state.writer.base.get("abilities") or {}).get(ability.id)
    if not isinstance(score, int | float) or isinstance(score, bool):
        score = ability.default
    return f"abilities.{ability.id}", ability, float(score)


def _within(shape: Any, value: float) -> int | float:
    """The result within the target's limits (a whole number for an ability or an integer
    field)."""
    if getattr(shape, "type", None) == "number":
        read = read_value(shape, value)
        return read if isinstance(read, int | float) else value
    return int(max(shape.min, min(shape.max, value)))
