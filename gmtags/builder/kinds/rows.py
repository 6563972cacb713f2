"""The `rows` step (004, "Filas con nombre", 1.154; BUILDER E1–E8): the player's own rows of
one sheet list.

004: "Un paso rows permite al jugador añadir, editar y quitar sus propias filas en una de
las listas de la ficha". `columns` is the subset of the list's columns the step edits (all
when omitted); `required` names the columns a row fills to count. "La insignia cuenta las
filas completas que aún faltan por debajo de min …, más cada fila con una celda obligatoria
vacía". "max detiene Add a row … y nunca supera el maxItems de la lista" (clamped silently,
BUILDER §3.27). "Una fila nueva parte de los valores predeterminados de las columnas y
después de defaults". Rows are the list's rows by position: "dos criados con el mismo nombre
siguen siendo dos filas, y quitar uno conserva el otro".

`countFrom` (1.799): "Cuando se muestra el paso, el creador añade filas, cada una tal como
la crea Add a row, hasta que las propias filas del jugador llegan a esa cantidad, sin superar
nunca max ni el maxItems de la lista; nunca retira una fila, y una fila eliminada ahí sigue
eliminada hasta que se vuelve a mostrar el paso. Un personaje que se está describiendo no
recibe filas por mirar el paso. El paso espera entonces esa cantidad de filas completas, como
hace con min, la mayor de las dos …, y muestra la misma cuenta "N of M"".

Decisions where the sources are silent:
- The step's rows are its answer's `rows` (SPEC §10), in order; row `n` is the `n`th. Each is
  written to the list marked `_pick` (the step) and `_row` (its position), so it is rebuilt
  from the answers on every build (a row the player wrote in All fields, unmarked, stays
  untouched) and a page tells it from a pick's row (which carries `_catalog`).
- An answered row is a row as Add a row made it and then edited: the cells it gives replace
  the new row's defaults. A cell of a column the step does not edit, or a value that does not
  fit its column (one a save refuses: `gmtags.sheet.holds.value_problem`), is a problem
  (`res.problems`) and is not written.
- Rows past `max` (after the clamp to `maxItems`) are kept in the answers, inactive, and not
  written; the step's rows alone count against `max`.
- `countFrom` is read on the finished sheet (as a catalog step's, BUILDER §2.2), when the
  step is visited (`visited: true`, BUILDER §3.14). The rows it adds go into `res.answers`,
  and the visit is used up there (`visited` taken out), so a row the player then removes
  stays removed until the step is visited again. `described: true` never adds rows.
- A cell is filled unless absent, None or text that is only blank.
- Priced rows (`pool`, `cost`) and rows copied from a catalog (`from`, answered as
  `picks`) are `gmtags.builder.priced_rows` (BUILDER D19/D20).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gmtags.builder import priced_rows
from gmtags.builder.controls import (
    Choose,
    Control,
    Fact,
    Look,
    Note,
    Option,
    Press,
    Table,
    Visit,
)
from gmtags.builder.kinds.fields import typed_control
from gmtags.builder.state import read_count
from gmtags.ruleset.builder.priced import RowsStep
from gmtags.ruleset.sheet.lists import SheetList
from gmtags.sheet.holds import value_problem

if TYPE_CHECKING:
    from gmtags.builder.state import Entry, Finished, State

Row = dict[str, Any]


def run(state: State, step: RowsStep) -> None:
    """The step's rows written to its list; `countFrom`'s rows and the badge once every
    step has run (module doc). Priced rows and copies from a catalog: `priced_rows`."""
    entry = state.blank_entry(step.id, step.kind)
    shape = next((s for s in state.ruleset.sheet.lists if s.id == step.list), None)
    if shape is None:
        entry["reasons"].append(f"list '{step.list}' is not on the sheet")
        return
    most = capacity(step, shape)
    rows = [
        _cells(state, step, shape, n, row)
        for n, row in enumerate(state.answers.step(step.id).rows or [])
    ]
    copied = priced_rows.copies(state, step)
    refs: list[str | None] = [None] * len(rows) + [ref for ref, _ in copied]
    rows += [{**new_row(step, shape), **values} for _, values in copied]
    entry["inactive"] = [
        {"answer": n, "reason": f"the step takes at most {most} rows"}
        for n in range(most, len(rows))
    ]
    written = rows[:most]
    unpaid = priced_rows.charge(state, step, written)
    for n, row in enumerate(written):
        if n in unpaid:
            entry["inactive"].append({"answer": n, "reason": unpaid[n]})
            continue
        mark: Row = {"_pick": step.id, "_row": n}
        if refs[n] is not None:
            mark["_catalog"] = refs[n]
        state.writer.row(step.list, {**row, **mark})
    anchor = _last_row(state, step.list)
    paid = [row for n, row in enumerate(written) if n not in unpaid]

    def finish(state: State, by_id: dict[str, Entry]) -> None:
        _count_from(state, step, shape, paid, anchor, by_id[step.id])
        by_id[step.id]["pending"] += len(unpaid)

    state.later(step.id, finish)


def capacity(step: RowsStep, shape: SheetList) -> int:
    """004: `max` stops Add a row and never exceeds the list's `maxItems` (BUILDER §3.27)."""
    return shape.max_items if step.max is None else min(step.max, shape.max_items)


def new_row(step: RowsStep, shape: SheetList) -> Row:
    """004, "Una fila nueva parte de los valores predeterminados de las columnas y después de
    defaults" (only the columns the step edits)."""
    edited = _edited(step, shape)
    row: Row = {c.id: c.default for c in shape.columns if c.id in edited and c.default is not None}
    row.update({k: v for k, v in (step.defaults or {}).items() if k in edited})
    return row


def filled(value: object) -> bool:
    """A cell counts as filled (module doc)."""
    return value is not None and not (isinstance(value, str) and not value.strip())


def complete(step: RowsStep, row: Row) -> bool:
    """004: a row counts once every `required` column is filled."""
    return all(filled(row.get(column)) for column in step.required or ())


def _edited(step: RowsStep, shape: SheetList) -> list[str]:
    every = [c.id for c in shape.columns]
    return every if step.columns is None else [c for c in step.columns if c in every]


def _cells(state: State, step: RowsStep, shape: SheetList, n: int, answered: Row) -> Row:
    """An answered row over the new row's defaults; cells that cannot be written reported."""
    row = new_row(step, shape)
    edited = _edited(step, shape)
    for key, value in answered.items():
        at = f"steps.{step.id}.rows.{n}.{key}"
        column = shape.column(key)
        if column is None or key not in edited:
            state.problem(at, f"not a column this step edits in list '{step.list}'")
        elif value_problem(column, value) is not None:  # what a save refuses (SPEC §11)
            state.problem(at, f"does not fit column '{key}'")
        else:
            row[key] = value
    return row


def _last_row(state: State, list_id: str) -> Row | None:
    rows = (state.writer.base.get("lists") or {}).get(list_id) or []
    return rows[-1] if rows else None


def _count_from(
    state: State,
    step: RowsStep,
    shape: SheetList,
    rows: list[Row],
    anchor: Row | None,
    entry: Entry,
) -> None:
    """`countFrom` on the finished sheet, the rows a visit adds, and the badge (module doc)."""
    most = capacity(step, shape)
    counted: int | None = None
    if step.count_from is not None:
        counted = read_count(state.values(), step.count_from, most)
    answer = state.answers.step(step.id)
    added: list[Row] = []
    if counted is not None and answer.visited and state.answers.described is not True:
        added = [new_row(step, shape) for _ in range(counted - len(rows))]
        _insert(
            state,
            step,
            anchor,
            [{**r, "_pick": step.id, "_row": len(rows) + n} for n, r in enumerate(added)],
        )
    if answer.visited:
        made = state.made_answers.setdefault(step.id, {})
        made["visited"] = None
        if added:
            made["rows"] = [*(answer.rows or []), *added]
    every = rows + added
    done = [n for n, row in enumerate(every) if complete(step, row)]
    wanted = max(step.min or 0, counted or 0)
    entry["offered"] = list(range(len(every)))
    entry["active"] = done
    state.waits(entry, max(0, wanted - len(done)) + (len(every) - len(done)))
    if wanted:
        entry["reasons"].append(f"{len(done)} of {wanted}")


def _insert(state: State, step: RowsStep, anchor: Row | None, rows: list[Row]) -> None:
    """Added rows go right after the step's own rows in the list (after `anchor`, the last
    row the list held once the step's rows were written; at its start without one)."""
    if not rows:
        return
    found = (state.writer.base.get("lists") or {}).get(step.list) or []
    at = next((n + 1 for n, row in enumerate(found) if row is anchor), 0)
    for n, row in enumerate(rows):
        state.writer.row(step.list, row, at + n)


def gate(done: Finished, step: RowsStep) -> priced_rows.UnpaidRows | None:
    """The rows the step's pool did not pay on the finished build, or could not pay now."""
    if step.pool is None:
        return None
    unpaid = priced_rows.unpaid_rows(done.state, step)
    return priced_rows.UnpaidRows(unpaid) if unpaid else None


def view(look: Look, step: RowsStep) -> list[Control]:
    """The pool, the rows other picks added, the `from` catalog's entries to pick, then the
    player's rows (a control per edited column, and Remove) and Add a row."""
    shape = next((s for s in look.ruleset.sheet.lists if s.id == step.list), None)
    if shape is None:
        return [Note(f"'{step.list}' is not a list of the sheet", "warn")]
    answer = look.answer(step.id)
    columns = [c for c in shape.columns if c.id in _edited(step, shape)]
    controls: list[Control] = [*look.pool_line(step.pool)]
    listed = (look.card.get("lists") or {}).get(step.list) or []
    for row in listed:
        if isinstance(row, dict) and row.get("_catalog") and row.get("_pick") != step.id:
            name = row.get(columns[0].id if columns else "name", row.get("name", ""))
            controls.append(Fact(str(name), "Added by a pick"))
    if step.from_ is not None:
        catalog = next((c for c in look.ruleset.catalog_models if c.id == step.from_), None)
        picks = answer.get("picks") or []
        options = tuple(
            Option(e.id, e.label, e.summary or "", chosen=e.id in picks)
            for e in (catalog.entries or () if catalog is not None else ())
        )
        path = ("steps", step.id, "picks")
        controls.append(Choose("", path, options, single=False, name=f"from-{step.id}"))
    rows = [r for r in answer.get("rows") or [] if isinstance(r, dict)]
    reasons = look.reasons()
    table: list[tuple[Control, ...]] = []
    for n, row in enumerate(rows):
        cells = [
            typed_control(
                column,
                ("steps", step.id, "rows", n, column.id),
                row.get(column.id),
                f"{column.label or column.id}, row {n + 1}",
                f"cell-{step.id}-{n}-{column.id}",
            )
            for column in columns
        ]
        remove = Press(
            f"Remove row {n + 1}",
            ("steps", step.id, "rows"),
            n,
            op="remove",
            name=f"remove-{step.id}-{n}",
        )
        table.append((*cells, remove))
    if table:
        heads = tuple(c.label or c.id for c in columns)
        off = tuple(n for n in range(len(rows)) if str(n) in reasons)
        controls.append(Table(step.label, heads, tuple(table), off))
        controls += [
            Note(f"Row {n + 1}: kept, not counted: {reasons[str(n)]}", "warn") for n in off
        ]
    else:
        controls.append(Note("No rows yet."))
    if not answer.get("visited"):  # BUILDER §3.14: opening the step adds its counted rows
        controls.append(Visit(("steps", step.id, "visited"), True))
    full = len(rows) >= capacity(step, shape)
    add = Press(
        "Add a row",
        ("steps", step.id, "rows"),
        new_row(step, shape),
        op="append",
        disabled=full,
        name=f"add-{step.id}",
    )
    controls.append(add)
    return controls
