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
  answers (the record's) are built on the
  card; every ability score they raised is put back as a builder write over
  the card's value minus the gain, clamped at the ability's min. The card is
  unchanged while the picks stand, and unpicking then subtracts the gain.
  Only the ability gains are taken back so: what else a described pick gave
  (training, rows) stays the player's (a decision where the seed is silent).
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
    described = saved.get("described") is True if saved is not None else not_blank(card, blank())
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


def done_card(
    ruleset: Ruleset, answers: Answers, card: Mapping[str, Any] | None, build: Build
) -> dict[str, Any]:
    """The card to build Done on: each ability the described picks raised stands as a builder
    write of the card's value over the card's value minus the gain (§3.24)."""
    given = copy.deepcopy(dict(card or {}))
    saved = _record_answers(given)
    given.pop(RECORD, None)
    picks = read_answers({**saved, "described": False}) if saved else answers
    tried = build(picks.model_copy(update={"described": False}), given)
    writes: dict[str, Any] = {}
    under: dict[str, Any] = {}
    for ability in ruleset.sheet.abilities:
        path = f"abilities.{ability.id}"
        own, gave = read(given, path), read(tried, path)
        if not isinstance(own, int | float) or not isinstance(gave, int | float):
            continue
        gain = gave - own
        if gain <= 0:
            continue
        base = max(ability.min, own - gain) if ability.min is not None else own - gain
        writes[path] = own
        under[path] = int(base) if float(base).is_integer() else base
    given[RECORD] = {"answers": {}, "writes": writes, "under": under}
    return given


__all__ = ["as_described", "done_card", "is_done", "not_blank", "resolve"]
