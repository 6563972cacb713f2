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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SECTIONS = ("abilities", "skills", "saves", "bonuses", "fields")
"""The card's sections the builder writes by path (`<section>.<id>`)."""

RECORD = "builder"
_ABSENT = object()


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


@dataclass
class Writer:
    """What one build writes onto the player's layer (module doc)."""

    base: dict[str, Any]
    """The player's layer the build reads and writes (a working copy)."""
    layer: Layer | None = None
    """The card taken apart: its overrides stand on the card while the builder writes what it
    wrote before (so what reads the sheet as it is reads the player's edit)."""
    writes: dict[str, Any] = field(default_factory=dict)
    under: dict[str, Any] = field(default_factory=dict)
    picks: list[str] = field(default_factory=list)
    picked_rows: dict[RowKey, int] = field(default_factory=dict)
    """How many rows of each pick this build has written."""

    def write(self, path: str, value: Any) -> None:
        """Write `value` at `path`, remembering the player's value underneath it."""
        if path not in self.writes:
            own = read(self.base, path)
            if own is not None:
                self.under[path] = copy.deepcopy(own)
        self.writes[path] = value
        layer = self.layer
        kept = layer is not None and path in layer.overrides and layer.writes.get(path) == value
        put(self.base, path, layer.overrides[path] if kept and layer is not None else value)

    def unwrite(self, path: str) -> None:
        """Take back this build's write at `path` (the player's value returns)."""
        if path not in self.writes:
            return
        del self.writes[path]
        if path in self.under:
            put(self.base, path, self.under.pop(path))
        else:
            drop(self.base, path)

    def own(self, path: str) -> Any:
        """The player's value at `path` (None when blank or the builder's)."""
        return self.under.get(path) if path in self.writes else read(self.base, path)

    def pick(self, ref: str) -> None:
        """Add `catalog/entry` to the card's picks, once (004: grants once, B38)."""
        picks = self.base.setdefault("picks", [])
        if ref not in picks:
            picks.append(ref)
            self.picks.append(ref)

    def row(self, list_id: str, row: dict[str, Any]) -> None:
        self.base.setdefault("lists", {}).setdefault(list_id, []).append(row)

    def picked_row(self, list_id: str, row: dict[str, Any]) -> None:
        """A row a pick adds, marked `_catalog` and `_pick` (module doc): the `n`th row of
        the pick in the list is the card's `n`th one while the card holds it, each of its cells
        as the card holds it (a stamp as written when the row was added, a later All-fields
        edit); only a cell the card's row lacks is taken from `row`."""
        key = row_key(list_id, row)
        if key is None:
            raise ValueError("a pick's row is marked with its entry and its step")
        n = self.picked_rows.get(key, 0)
        self.picked_rows[key] = n + 1
        held = self.layer.rows.get(key, []) if self.layer is not None else []
        if n < len(held):
            row = {**row, **copy.deepcopy(held[n])}
        self.row(list_id, row)

    def item(self, line: dict[str, Any]) -> None:
        self.base.setdefault("items", []).append(line)


def settle(
    writer: Writer, layer: Layer, record: dict[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The card: the player's values, this build's writes, and each override kept while the
    builder's value for it is what it was (SPEC §10), else dropped and reported."""
    card = writer.base
    dropped = [
        {"path": path, "value": value}
        for path, value in layer.overrides.items()
        if writer.writes.get(path, _ABSENT) != layer.writes.get(path)
    ]
    writes = dict(writer.writes)
    if writer.picks:
        writes["picks"] = list(writer.picks)
    record = {**record, "writes": writes}
    if writer.under:
        record["under"] = writer.under
    card[RECORD] = record
    return card, dropped


__all__ = ["Layer", "Writer", "player_layer", "read", "settle"]
