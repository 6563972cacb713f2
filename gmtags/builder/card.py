"""What on a card is the player's and what the builder wrote (SPEC §10, 004 "Deseleccionar").

SPEC §10: "The card's hand-written values are the player's: `sets` writes only
blank or builder-written fields; a value the builder wrote and the player then
changed by hand is kept until the builder's own answer for it changes (then it
is listed in `res.dropped`)." The builder record on the card
(`card["builder"]`, SPEC §4 keeps unknown keys) holds, besides the answers:

- `writes`: every value the builder last wrote, by path (`abilities.str`,
  `skills.arcana`, `fields.race`), and `picks`, the `catalog/entry` picks it
  added to the card's `picks`;
- `under`: for a path the builder wrote over a value of the player's (a
  hand-written score a grant raised, a skill trained by hand at a lower
  tier), that value, so that taking the builder's write away gives it back.

Rows a pick wrote carry `_catalog` (the entry, as every picked row does) and
`_pick` (the step): they are the builder's, and come and go with the pick; rows
without `_pick` are the player's. While the pick stays, the row the card holds for
it stays as the card holds it (`Writer.picked_row`): 004, `stamp`, "El sello
sustituye al valor inicial del catálogo. Las filas existentes y las ediciones
posteriores en All fields siguen siendo del jugador", and a `fromWithin` stamp is
written "una sola vez al añadir la fila". A new pick's row is written afresh,
stamp and all. Rows a `rows` step wrote (marked `_row` too) are rebuilt from its
answers on every build (`gmtags.builder.kinds.rows`). Item lines a kit wrote
carry `_kit`.

`player_layer` takes a card apart into the player's values and the
overrides (builder values the player changed by hand); `Writer` collects what
this build writes and `settle` puts the card back together.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SECTIONS = ("abilities", "skills", "saves", "bonuses", "fields")
"""The card's sections the builder writes by path (`<section>.<id>`)."""

RECORD = "builder"


RowKey = tuple[str, str, str]
"""A pick's row: its list, its entry (`_catalog`) and its step (`_pick`)."""


def row_key(list_id: str, row: Any) -> RowKey | None:
    """The key of a row a catalog pick wrote (None for any other row: the player's, or a
    `rows` step's, which carries `_row`)."""
    if not isinstance(row, dict) or "_row" in row:
        return None
    entry, step = row.get("_catalog"), row.get("_pick")
    if not isinstance(entry, str) or not isinstance(step, str):
        return None
    return list_id, entry, step


def split(path: str) -> tuple[str, str]:
    section, _, key = path.partition(".")
    return section, key


def read(card: Mapping[str, Any], path: str) -> Any:
    """The value at `path` on the card (None when absent)."""
    section, key = split(path)
    part = card.get(section)
    return part.get(key) if isinstance(part, dict) else None


def put(card: dict[str, Any], path: str, value: Any) -> None:
    section, key = split(path)
    card.setdefault(section, {})[key] = value


def drop(card: dict[str, Any], path: str) -> None:
    section, key = split(path)
    part = card.get(section)
    if isinstance(part, dict):
        part.pop(key, None)
        if not part:
            card.pop(section, None)


@dataclass
class Layer:
    """A card taken apart: the player's own values, and the overrides of builder values."""

    card: dict[str, Any]
    """The player's values: the card without the builder's writes, its rows or its lines."""
    writes: dict[str, Any]
    """What the builder wrote last time, by path."""
    overrides: dict[str, Any]
    """Builder values the player changed by hand, by path, as the card now holds them."""
    picks: list[str]
    """The builder's `picks` of last time."""
    record: dict[str, Any] = field(default_factory=dict)
    """The builder record the card held (what a step saved at its last build: the values an
    initialize step wrote at "Set", …)."""
    rows: dict[RowKey, list[dict[str, Any]]] = field(default_factory=dict)
    """The rows picks wrote that the card holds, by `row_key`, in the card's order."""


def _paths(kept: Any) -> dict[str, Any]:
    """A record's `writes` or `under` as far as it holds values at `<section>.<id>` paths of
    `SECTIONS`: the record is the builder's own, but it comes back in a card a player may
    have edited, so anything else in it reads as never written (never a `TypeError`)."""
    if not isinstance(kept, dict):
        return {}
    return {
        path: value
        for path, value in kept.items()
        if isinstance(path, str) and split(path)[0] in SECTIONS and split(path)[1]
    }


def player_layer(card: Mapping[str, Any] | None) -> Layer:
    """Take `card` apart (module doc)."""
    data = copy.deepcopy(dict(card or {}))
    record = data.pop(RECORD, None)
    record = record if isinstance(record, dict) else {}
    writes = _paths(record.get("writes"))
    under = _paths(record.get("under"))
    listed = record["writes"].get("picks") if isinstance(record.get("writes"), dict) else None
    old_picks = [p for p in listed if isinstance(p, str)] if isinstance(listed, list) else []
    overrides: dict[str, Any] = {}
    for path, written in writes.items():
        now = read(data, path)
        if now is not None and now != written:
            overrides[path] = now
        if path in under:
            put(data, path, under[path])
        else:
            drop(data, path)
    picks = list(data.get("picks") or [])
    for pick in old_picks:
        if pick in picks:
            picks.remove(pick)
    if picks:
        data["picks"] = picks
    else:
        data.pop("picks", None)
    held: dict[RowKey, list[dict[str, Any]]] = {}
    for list_id, rows in list((data.get("lists") or {}).items()):
        if isinstance(rows, list):
            for row in rows:
                key = row_key(list_id, row)
                if key is not None:
                    held.setdefault(key, []).append(row)
            kept = [r for r in rows if not (isinstance(r, dict) and "_pick" in r)]
            data["lists"][list_id] = kept
            if not kept:
                del data["lists"][list_id]
    if "lists" in data and not data["lists"]:
        del data["lists"]
    items = data.get("items")
    if isinstance(items, list):
        data["items"] = [i for i in items if not (isinstance(i, dict) and "_kit" in i)]
        if not data["items"]:
            del data["items"]
    return Layer(data, writes, overrides, old_picks, record, held)


class _Absent:
    """Nothing at a place on the card (`Wrote.before`)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()
LISTED = ("picks", "lists", "items")
"""The card's places a build adds to (an insertion at a position) rather than writes."""


@dataclass(frozen=True, slots=True)
class Wrote:
    """One change a build made to the card, in the order it made them (`Writer.record`).

    `by` is the step whose run made it, or the work done once every step has run: a step's
    id for its own finishing work, else in parentheses (`(scores)`, `(training)`,
    `(choices)`, `(ratings)`, `(allocate)`, `(pools)`; `(finish)` for the last checks).
    `place` is a path (`<section>.<id>`) or, for an addition, `picks`, `lists.<id>` or
    `items` with the position `at`. `value` is what the builder wrote; `shown` what the card
    shows instead when that differs (the player's hand edit kept); `before` what the card
    held there before (`ABSENT` when nothing), so that taking it back is exact."""

    by: str
    place: str
    value: Any
    before: Any = ABSENT
    shown: Any = ABSENT
    at: int | None = None


SAID_WIDTH = 72
"""`said` shortens a value's JSON to this many characters."""


def said(wrote: Wrote) -> str:
    """One change as a line a ruleset author reads: `fields.race = "Half-Elf"`, `picks +
    races/half-elf`, `lists.features + Darkvision` (a row by its name when it has one),
    `items + equipment/spellbook ×1`, with the value it replaced (`(was 17)`) and the one
    the card shows instead (`(shown 16)`)."""

    def text(value: Any) -> str:
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            value = value["name"]
        elif isinstance(value, dict) and isinstance(value.get("ref"), str):  # an item line
            value = f"{value['ref']} ×{value.get('count', 1)}"
        if isinstance(value, str) and wrote.at is not None:
            written = value
        else:
            written = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
        return written if len(written) <= SAID_WIDTH else written[: SAID_WIDTH - 1] + "…"

    if wrote.at is not None:
        return f"{wrote.place} + {text(wrote.value)}"
    line = f"{wrote.place} = {text(wrote.value)}"
    if wrote.before is not ABSENT:
        line += f" (was {text(wrote.before)})"
    if wrote.shown is not ABSENT:
        line += f" (shown {text(wrote.shown)})"
    return line


def _copied(value: Any) -> Any:
    return copy.deepcopy(value) if isinstance(value, dict | list) else value


@dataclass
class Writer:
    """What one build writes onto the player's layer (module doc), as an append-only record
    of each change (`record`): `writes`, `under`, `picks` and `picked_rows` are indexes over
    it, and `undo_to` takes the last changes back exactly."""

    base: dict[str, Any]
    """The player's layer the build reads and writes (a working copy)."""
    layer: Layer | None = None
    """The card taken apart: its overrides stand on the card while the builder writes what it
    wrote before (so what reads the sheet as it is reads the player's edit)."""
    by: str = ""
    """Who is writing now (`Wrote.by`): set by the walk as each step and each finishing work
    runs."""
    record: list[Wrote] = field(default_factory=list)
    writes: dict[str, Any] = field(default_factory=dict)
    under: dict[str, Any] = field(default_factory=dict)
    picks: list[str] = field(default_factory=list)
    picked_rows: dict[RowKey, int] = field(default_factory=dict)
    """How many rows of each pick this build has written."""
    version: int = 0
    """Counts every change made or taken back: the card read at one version is the card."""

    def write(self, path: str, value: Any, shown: Any = ABSENT) -> None:
        """Write `value` at `path`, remembering the player's value underneath it. The card
        shows `shown` when given (a hand-made difference kept on top of the builder's value),
        else the player's override of the builder's same value, else `value`."""
        before = read(self.base, path)
        layer = self.layer
        kept = layer is not None and path in layer.overrides and layer.writes.get(path) == value
        if shown is ABSENT and kept and layer is not None:
            shown = layer.overrides[path]
        before = ABSENT if before is None else _copied(before)
        self._log(Wrote(self.by, path, value, before, shown))
        put(self.base, path, value if shown is ABSENT else shown)

    def own(self, path: str) -> Any:
        """The player's value at `path` (None when blank or the builder's)."""
        return self.under.get(path) if path in self.writes else read(self.base, path)

    def pick(self, ref: str) -> None:
        """Add `catalog/entry` to the card's picks, once (004: grants once, B38)."""
        picks = self.base.setdefault("picks", [])
        if ref not in picks:
            self._log(Wrote(self.by, "picks", ref, at=len(picks)))
            picks.append(ref)

    def row(self, list_id: str, row: dict[str, Any], at: int | None = None) -> None:
        """Add `row` to the list `list_id`: at its end, or at position `at`."""
        rows = self.base.setdefault("lists", {}).setdefault(list_id, [])
        at = len(rows) if at is None else at
        self._log(Wrote(self.by, f"lists.{list_id}", row, at=at))
        rows.insert(at, row)

    def picked_row(self, list_id: str, row: dict[str, Any]) -> None:
        """A row a pick adds, marked `_catalog` and `_pick` (module doc): the `n`th row of
        the pick in the list is the card's `n`th one while the card holds it, each of its cells
        as the card holds it (a stamp as written when the row was added, a later All-fields
        edit); only a cell the card's row lacks is taken from `row`."""
        key = row_key(list_id, row)
        if key is None:
            raise ValueError("a pick's row is marked with its entry and its step")
        n = self.picked_rows.get(key, 0)
        held = self.layer.rows.get(key, []) if self.layer is not None else []
        if n < len(held):
            row = {**row, **copy.deepcopy(held[n])}
        self.row(list_id, row)

    def item(self, line: dict[str, Any]) -> None:
        items = self.base.setdefault("items", [])
        self._log(Wrote(self.by, "items", line, at=len(items)))
        items.append(line)

    # -- the record ---------------------------------------------------------------

    def _log(self, wrote: Wrote) -> None:
        self.version += 1
        self.record.append(wrote)
        self._index(wrote)

    def _index(self, wrote: Wrote) -> None:
        if wrote.at is None:
            if wrote.place not in self.writes and wrote.before is not ABSENT:
                self.under[wrote.place] = wrote.before
            self.writes[wrote.place] = wrote.value
        elif wrote.place == "picks":
            self.picks.append(wrote.value)
        else:
            key = row_key(wrote.place.partition(".")[2], wrote.value)
            if key is not None:
                self.picked_rows[key] = self.picked_rows.get(key, 0) + 1

    def undo_to(self, size: int) -> None:
        """Take back every change after the first `size`, last first: the card is as it was
        when the record had `size` changes, and so are the indexes."""
        take_back(self.base, self.record[size:])
        del self.record[size:]
        self.version += 1
        self.writes, self.under, self.picks, self.picked_rows = {}, {}, [], {}
        for wrote in self.record:
            self._index(wrote)

    def by_step(self) -> dict[str, list[Wrote]]:
        """The record by who made each change, in the order they first wrote."""
        found: dict[str, list[Wrote]] = {}
        for wrote in self.record:
            found.setdefault(wrote.by, []).append(wrote)
        return found


def take_back(card: dict[str, Any], changes: Sequence[Wrote]) -> None:
    """Take `changes`, the last changes a build made to `card`, back from it, last first:
    `card` is then as it was before them (the player's layer, for a build's whole record)."""
    for wrote in reversed(changes):
        if wrote.at is None:
            if wrote.before is ABSENT:
                drop(card, wrote.place)
            else:
                put(card, wrote.place, wrote.before)
            continue
        section, _, list_id = wrote.place.partition(".")
        holder = card["lists"] if list_id else card
        key = list_id or section
        del holder[key][wrote.at]
        if not holder[key]:
            del holder[key]
            if list_id and not holder:
                del card["lists"]


def settle(
    writer: Writer, layer: Layer, record: dict[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The card: the player's values, this build's writes, and each override kept while the
    builder's value for it is what it was (SPEC §10), else dropped and reported."""
    card = writer.base
    dropped = [
        {"path": path, "value": value}
        for path, value in layer.overrides.items()
        if writer.writes.get(path, ABSENT) != layer.writes.get(path)
    ]
    writes = dict(writer.writes)
    if writer.picks:
        writes["picks"] = list(writer.picks)
    record = {**record, "writes": writes}
    if writer.under:
        record["under"] = writer.under
    card[RECORD] = record
    return card, dropped


__all__ = [
    "ABSENT",
    "Layer",
    "Writer",
    "Wrote",
    "player_layer",
    "read",
    "said",
    "settle",
    "take_back",
]
