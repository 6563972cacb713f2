"""The `initialize` step (004, "Valores iniciales fijados una vez", 1.158; BUILDER F10):
starting values written when the player confirms them, and never again by themselves.

004: "Un paso del creador de kind: "initialize" escribe valores iniciales cuando el jugador
los confirma, y nunca más por sí solo … Cada escritura nombra un campo de la ficha y un value
(un valor fijo, o una Ref para un campo numérico) o remaining, lo que una reserva del creador
ha dejado sin gastar. El paso muestra cada campo tal como está y el valor que tendrá; su
insignia espera hasta que el jugador los fija. Los valores escritos se guardan con el creador,
así que reabrirlo, importar el personaje o cambiar POW más adelante nunca los vuelve a
escribir. Cuando la ficha ha cambiado desde entonces, el paso muestra lo que sustituiría volver
a fijarlos, y solo lo hace el Set again (Volver a fijar) del jugador. Nunca se escribe en un
personaje que se describe tal como ya es."

The answer's `set` counts the player's confirmations (1 = Set, 2 = Set again, …, SPEC
§10). The values written at the last one are kept in the card's builder record, under
`initialize.<step>` as `{"set": n, "values": {field: value}}`, and written again from there
on every build while `set` is still `n`. The step's entry lists, under `writes`, each field
as it is (`now`), the value Set would write (`value`) and the value the last Set wrote
(`set`); a reason names each value "Set again" would replace.

Decisions where the sources are silent:
- The values are read on the finished sheet: after every step, and after the work other
  kinds do once every step has run (the pools' spending, the rolls read on the finished
  sheet). With `reads.before` (1.160) a Ref is read on the sheet as the steps before the
  named one leave it (`gmtags.builder.profiles`); `remaining` still reads the pools as spent.
- A `set` other than the recorded one (Set again, or an undo of it) writes the values as they
  are now and records them with the new count; `set` 0 (or absent) writes nothing and drops
  the record. A record that is not of the shape above, or a value in it that no longer fits
  its field, is not read.
- Set writes over the field's value, even one written by hand (the player asked for it);
  a hand edit after it is the player's, kept while the recorded value stands (SPEC §10).
- A Ref is read as a number, within the field's limits; a fixed value that does not fit its
  field is not written. `remaining` reads a builder pool's remaining (`res.pools`), which
  every declared pool has from the start ("lo que una reserva del creador ha dejado sin
  gastar": its whole budget while nothing is spent), whether or not a shown step pays from
  it. A pool whose budget is "sin configurar" has nothing left to read: it is reported, and
  nothing is written for it.
- `described: true` (the player's own word) writes nothing and keeps the record as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gmtags.builder.controls import Control, Fact, Look, Press
from gmtags.ruleset.builder.priced import InitializeStep, Write
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.sheet.values import read_value

if TYPE_CHECKING:
    from gmtags.builder.state import Entry, State

RECORD = "initialize"
"""The key of the builder record that holds each initialize step's last Set."""

_NOTHING = object()


def run(state: State, step: InitializeStep) -> None:
    """The step's entry now; its values once every step has run (module doc)."""
    entry = state.blank_entry(step.id, step.kind)
    entry["offered"] = [write.field for write in step.writes]

    def finish(state: State, by_id: dict[str, Entry]) -> None:
        _initialize(state, step, by_id[step.id])

    def after_the_others(state: State, by_id: dict[str, Entry]) -> None:
        state.later(step.id, finish)

    state.later(step.id, after_the_others)


def view(look: Look, step: InitializeStep) -> list[Control]:
    """Each field as it is and what Set writes, then Set (Set again once set)."""
    controls: list[Control] = []
    for write in look.entry.get("writes") or ():
        now = write.get("set", write.get("now"))
        now = "—" if now in (None, "") else now
        controls.append(Fact(look.label(write["field"]), f"now {now}, Set writes {write['value']}"))
    count = look.answer(step.id).get("set") or 0
    label = "Set again" if count else "Set"
    controls.append(Press(label, ("steps", step.id, "set"), count + 1, name=f"set-{step.id}"))
    return controls


def last_set(state: State, step_id: str) -> tuple[int, dict[str, Any]] | None:
    """The confirmation count and the values of the step's last Set, as the card's builder
    record holds them (None when it holds none of that shape)."""
    kept = state.previous.get(RECORD)
    found = kept.get(step_id) if isinstance(kept, dict) else None
    if not isinstance(found, dict):
        return None
    count, values = found.get("set"), found.get("values")
    if isinstance(count, bool) or not isinstance(count, int) or not isinstance(values, dict):
        return None
    return count, values


def _initialize(state: State, step: InitializeStep, entry: Entry) -> None:
    shapes = {f.id: f for f in state.ruleset.sheet.fields}
    count = state.answers.step(step.id).set or 0
    before = last_set(state, step.id)
    if state.answers.described is True:
        entry["reasons"].append("a described character is never initialized")
        if before is not None:
            state.saved.setdefault(RECORD, {})[step.id] = {"set": before[0], "values": before[1]}
        return
    recorded = before[1] if before is not None and before[0] == count else {}
    written: dict[str, Any] = {}
    shown: list[dict[str, Any]] = []
    for write in step.writes:
        shape = shapes.get(write.field)
        path = f"fields.{write.field}"
        if shape is None:
            entry["reasons"].append(f"'{write.field}' is not a field of the sheet")
            continue
        future = _value(state, write, shape, entry)
        stored = recorded.get(write.field, _NOTHING)
        if stored is not _NOTHING and read_value(shape, stored) != stored:
            stored = _NOTHING
        line: dict[str, Any] = {
            "field": write.field,
            "now": (state.writer.base.get("fields") or {}).get(write.field),
            "value": None if future is _NOTHING else future,
        }
        if count >= 1:
            value = stored if stored is not _NOTHING else future
            if value is not _NOTHING:
                state.writer.write(path, value)
                written[write.field] = value
                line["set"] = value
                if future is not _NOTHING and future != value:
                    entry["reasons"].append(
                        f"Set again would replace {write.field} {value} with {future}"
                    )
        shown.append(line)
    entry["writes"] = shown
    entry["active"] = list(written)
    state.waits(entry, 0 if count >= 1 else 1)
    if count >= 1:
        state.saved.setdefault(RECORD, {})[step.id] = {"set": count, "values": written}


def entry_step(state: State, entry: Entry) -> Any:
    """The step whose result entry `entry` is."""
    return next((s for s in state.builder.steps if s.id == entry["id"]), None)


def _value(state: State, write: Write, shape: Any, entry: Entry) -> Any:
    """What Set would write now (`_NOTHING`, with a reason, when nothing can be written)."""
    if write.remaining is not None:
        pool, account = state.pools.get(write.remaining), state.accounts.get(write.remaining)
        if pool is None or account is None:  # import refuses a pool the builder lacks
            entry["reasons"].append(f"pool '{write.remaining}' is not a pool of the builder")
            return _NOTHING
        if account.reason is not None:
            entry["reasons"].append(f"pool '{write.remaining}' is {account.reason}")
            return _NOTHING
        return _fit(shape, pool["remaining"], write, entry)
    value = write.value
    if isinstance(value, RulesetValueRef):
        if shape.type != "number":
            entry["reasons"].append(f"'{write.field}' is not a number field")
            return _NOTHING
        reads = getattr(entry_step(state, entry), "reads", None)
        sheet = state.before(reads.before) if reads and state.before else state.values()
        return read_value(shape, sheet.value(value))
    return _fit(shape, value, write, entry)


def _fit(shape: Any, value: Any, write: Write, entry: Entry) -> Any:
    """A value as the field holds it: a number within its limits, anything else as it is
    when it fits."""
    if shape.type == "number" and isinstance(value, int | float) and not isinstance(value, bool):
        return read_value(shape, value)
    if read_value(shape, value) != value:
        entry["reasons"].append(f"{value!r} does not fit field '{write.field}'")
        return _NOTHING
    return value
