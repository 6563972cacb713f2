"""What every resolver is handed, and the ladder rules all kinds share.

000, "Qué puede escribir el Game Master…": `difficulty=` names a ladder rung
instead of `dc=`; "Se ignora un nombre al que no responde ningún peldaño o que
comparten dos", and a `dc=` written beside it still wins for the number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from gmtags.checks.dice import Tray
from gmtags.checks.record import CheckRecord
from gmtags.checks.request import CheckRequest
from gmtags.limits import Limits
from gmtags.ruleset.resolution import Rung
from gmtags.sheet.numbers import CheckNumber

R = TypeVar("R", bound=Rung)


@dataclass(frozen=True)
class CheckInput:
    """One check to resolve: the ask, the sheet's number, the dice tray and the limits."""

    request: CheckRequest
    number: CheckNumber
    tray: Tray
    limits: Limits

    @property
    def is_save(self) -> bool:
        """True for a saving throw (000: `naturals.save` applies instead of `naturals.check`)."""
        return self.number.target.kind == "save"


def named_rung(ladder: Sequence[R] | None, written: str | None) -> R | None:
    """The rung `difficulty=` names by label (ignoring case); None when unknown or shared."""
    if not ladder or written is None:
        return None
    wanted = written.strip().casefold()
    found = [rung for rung in ladder if rung.label.casefold() == wanted]
    return found[0] if len(found) == 1 else None


def start_record(check: CheckInput) -> CheckRecord:
    """The parts of a record every kind writes the same way: skill, who, with, sheet extras."""
    number = check.number
    character = number.character
    who = character.name if character.name is not None else check.request.who
    return CheckRecord(
        skill=check.request.name,
        dc=0,
        who=who,
        with_=number.with_label,
        penalty=round(number.penalty),
        adjust=round(number.adjust_total),
    )
