"""Described characters (BUILDER H1–H2, §3.20, §3.24; 004 "Un personaje creado sin el creador").

004: "Un personaje creado sin el creador (una ficha que no está en blanco y aún
no tiene elecciones del creador) se abre como described (descrito): las
selecciones registran lo que el personaje ya es (los aumentos de su raza se
consideran ya incluidos en sus puntuaciones) y no cambian nada en la ficha,
hasta que el jugador elige Done: let picks change the sheet … A partir de
entonces, cambiar una selección retira lo que dio la descrita."

- `described` absent: a card with no builder record that is not blank opens
  described; a card whose record's answers say `described: true` stays so;
  else the character is not described. `true` keeps it, `false` is Done.
- Not blank (§3.20): a value of the player's in a section the builder writes
  (abilities, skills, saves, bonuses, fields) or a list row that differs from
  what the blank build (no answers, no card) leaves there.
- While described the build runs for `res.steps` (the steps kinds roll,
  rows, initialize and the default method look at `described is True`), but
  the card comes back exactly as given, its builder record holding only the
  answers (with `described: true`).
- Done (§3.24): on the first build with `described: false` after a described
  one (the card's record says `described: true`), the picks of the described
  answers (the record's) are built on the card, and what they gave becomes
  the builder's (`done_card`): every ability score they raised is put back as
  a builder write over the card's value minus the gain, clamped at the
  ability's min; every other value they write that the card already holds
  (training, fields they set) is the builder's; their rows, kit lines and
  picks are taken off the player's, one for one, to be written again marked
  as the pick's. The card is unchanged while the picks stand, and unpicking
  then takes it all back. A value the card holds differently from what a
  pick writes stays the player's (a decision where the seed is silent).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from gmtags.builder.answers import Answers, read_answers
from gmtags.builder.card import RECORD, SECTIONS, read
from gmtags.ruleset.model import Ruleset

Build = Callable[[Answers, Mapping[str, Any] | None], dict[str, Any]]
"""A build of the card (answers, card) to the card it gives."""


def _record_answers(card: Mapping[str, Any] | None) -> dict[str, Any] | None:
    record = (card or {}).get(RECORD)
    if not isinstance(record, dict):
        return None
    saved = record.get("answers")
    return saved if isinstance(saved, dict) else {}


def _values(card: Mapping[str, Any]) -> dict[str, Any]:
    """The card's values the described test reads (§3.20), by section."""
    seen: dict[str, Any] = {}
    for section in (*SECTIONS, "lists"):
        part = card.get(section)
        if isinstance(part, dict):
            for key, value in part.items():
                if value not in (None, "", [], {}):
                    seen[f"{section}.{key}"] = value
    return seen


def not_blank(card: Mapping[str, Any] | None, blank: Mapping[str, Any]) -> bool:
    """Whether `card` holds a value the blank build `blank` does not (§3.20)."""
    if not card:
        return False
    empty = _values(blank)
    return any(empty.get(path) != value for path, value in _values(card).items())


def resolve(answers: Answers, card: Mapping[str, Any] | None, blank: Callable[[], Any]) -> Answers:
    """`answers` with `described` decided when absent (module doc); `blank` builds the blank
    card when it is needed."""
    if answers.described is not None:
        return answers
    saved = _record_answers(card)
    if saved is not None:
        described = saved.get("described") is True
    else:  # the blank build is made only for a card with values to compare
        described = bool(_values(card or {})) and not_blank(card, blank())
    return answers.model_copy(update={"described": True}) if described else answers


def is_done(answers: Answers, card: Mapping[str, Any] | None) -> bool:
    """Whether this build is Done: `described: false` after a described build (module doc).
    `false` on a card with no record is the player's word that the picks change the sheet:
    there are no described picks to take back."""
    if answers.described is not False:
        return False
    saved = _record_answers(card)
    return saved is not None and saved.get("described") is True


def as_described(card: Mapping[str, Any] | None, answers: dict[str, Any]) -> dict[str, Any]:
    """The card exactly as given, its builder record holding the answers."""
    out = copy.deepcopy(dict(card or {}))
    out.pop(RECORD, None)
    out[RECORD] = {"answers": answers}
    return out


def _own(row: Any) -> Any:
    """A row or item line without the builder's marks (`_pick`, `_catalog`, `_kit`, …)."""
    if not isinstance(row, dict):
        return row
    return {key: value for key, value in row.items() if not str(key).startswith("_")}


def _take_back(own: list[Any], given: list[Any]) -> list[Any]:
    """`own` without one equal row for each row of `given` (marks aside)."""
    kept = list(own)
    for row in given:
        plain = _own(row)
        found = next((place for place, mine in enumerate(kept) if _own(mine) == plain), None)
        if found is not None:
            del kept[found]
    return kept


def done_card(
    ruleset: Ruleset, answers: Answers, card: Mapping[str, Any] | None, build: Build
) -> dict[str, Any]:
    """The card to build Done on (§3.24): what the described picks gave becomes the builder's,
    so the card is unchanged while the picks stand and unpicking takes it back.

    - each ability score they raised stands as a builder write of the card's value over the
      card's value minus the gain (clamped at the ability's min);
    - an allocate step's numeric targets are recorded, never rewritten (H2, "also at
      Done"): the stages' values are the builder's writes and the card's value keeps its
      difference from them, as a hand edit does (`gmtags.builder.kinds.allocate`), so
      moving a dot moves the card's value by one;
    - every other value they write that the card holds as written (a trained skill, a field
      a pick sets) is the builder's write, with nothing of the player's underneath;
    - each row and kit line they write that the card holds (marks aside) is taken off the
      player's rows, once per row, and their picks off the card's `picks`: the build writes
      them again, marked as the pick's.
    A value the card holds differently from what a pick writes stays the player's."""
    given = copy.deepcopy(dict(card or {}))
    saved = _record_answers(given)
    given.pop(RECORD, None)
    picks = read_answers({**saved, "described": False}) if saved else answers
    plain = {key: value for key, value in given.items() if key != "picks"}
    undescribed = picks.model_copy(update={"described": False})
    tried = build(undescribed, plain)
    wrote = dict((tried.get(RECORD) or {}).get("writes") or {})
    # What the picks write from nothing: on the card, a value already there is not written,
    # and an allocation counts its dots from the card's values.
    from_nothing = build(undescribed, None).get(RECORD) or {}
    fresh = dict(from_nothing.get("writes") or {})
    writes: dict[str, Any] = {}
    under: dict[str, Any] = {}
    scores = {ability.id: ability for ability in ruleset.sheet.abilities}
    allocated = dict(from_nothing.get("allocated") or {})
    for path, value in allocated.items():
        if isinstance(read(given, path), int | float):
            writes[path] = value  # the card's value differs by the player's own difference
    for path, value in {**fresh, **wrote}.items():
        if path == "picks" or path in allocated:
            continue
        own = read(given, path)
        section, _, key = path.partition(".")
        if section == "abilities" and key in scores:
            if path not in wrote:
                continue
            gave = read(tried, path)
            if not isinstance(own, int | float) or not isinstance(gave, int | float):
                continue
            gain = gave - own
            if gain <= 0:
                continue
            least = scores[key].min
            base = max(least, own - gain) if least is not None else own - gain
            writes[path] = own
            under[path] = int(base) if float(base).is_integer() else base
        elif own is not None and own == fresh.get(path, value):
            writes[path] = own
    for list_id, rows in dict(tried.get("lists") or {}).items():
        mine = (given.get("lists") or {}).get(list_id)
        if isinstance(mine, list) and isinstance(rows, list):
            given["lists"][list_id] = _take_back(mine, [r for r in rows if "_pick" in r])
    if isinstance(given.get("items"), list):
        kit = [line for line in tried.get("items") or [] if "_kit" in line]
        given["items"] = _take_back(given["items"], kit)
    if isinstance(given.get("picks"), list):
        made = set(wrote.get("picks") or [])
        given["picks"] = [pick for pick in given["picks"] if pick not in made]
    given[RECORD] = {"answers": {}, "writes": writes, "under": under}
    if allocated:
        given[RECORD]["allocated"] = allocated
    return given


__all__ = ["as_described", "done_card", "is_done", "not_blank", "resolve"]
