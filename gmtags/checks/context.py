"""What every resolver is handed, and the ladder rules all kinds share.

000, "Qué puede escribir el Game Master…": `difficulty=` names a ladder rung
instead of `dc=`; "Se ignora un nombre al que no responde ningún peldaño o que
comparten dos", and a `dc=` written beside it still wins for the number.

SPEC §2.1: a `dc` that is a rung's name (matched as `difficulty=` matches one)
reads that rung exactly as `difficulty=` would (`read_dc`); a `dc` that is
neither a whole number nor a rung refuses the check (`unknown-dc`). No seed
says otherwise for any kind: 000's "los valores fuera de rango se ajustan al
extremo más cercano y un atributo no ofrecido se ignora, sin rechazar la
prueba" covers numbers out of range and attributes the ruleset does not offer,
never a `dc` that is no number, and the seeds say nothing of text in `dc=`.
On roll-against, whose `dc=` moves the target (000: "un dc= en la etiqueta
mueve el número"), a rung named in `dc` divides and moves it as its
`difficulty=` does. Decision where SPEC is silent: a rung named in `dc` stands
for `dc=` in full, so it wins over a `difficulty=` written beside it (for the
number, as a `dc=` does, and for a pool's target too, since one rung is meant).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from gmtags.checks.dice import Tray
from gmtags.checks.record import CheckRecord
from gmtags.checks.request import CheckRequest
from gmtags.limits import Limits
from gmtags.ruleset.resolution import RerollRule, Rung
from gmtags.sheet.numbers import CheckNumber
from gmtags.sheet.values import SheetValues

R = TypeVar("R", bound=Rung)


@dataclass(frozen=True, slots=True)
class Bought:
    """What a check paid for before the throw (000, "Gastar…" and "Un amuleto…").

    `successes` are added after counting, `dice` join the pool within its
    limits, `reroll` competes with a standing one, `threshold`/`explode`/
    `double` (a used entry's) win over the tag's. `spend` and `use` are the
    receipt's `spend="pool:paid"` and `use="Entry"`.
    """

    successes: int = 0
    dice: int = 0
    reroll: RerollRule | None = None
    threshold: int | None = None
    explode: int | None = None
    double: int | None = None
    spend: str | None = None
    use: str | None = None


NOTHING_BOUGHT = Bought()
"""A check that paid for nothing."""


@dataclass(frozen=True, slots=True)
class Effects:
    """What the rows and entries `apply=` named add to a check (004, "Una lista puede declarar
    contextual", "mechanics.contextual", 1.214).

    `bonus` is the signed sum of bonus cells and entry modifiers; `dice` the
    dice cells as (count, sides, plus); `pool_dice`, `successes`, `explode`
    and `double` the pool `check` effects (the lowest face of several);
    `cancel` False when a `cancel: false` applied. `names` is the receipt's
    `from`. Each kind adds them where it reads its number (`gmtags.checks.contextual`).
    """

    names: tuple[str, ...] = ()
    bonus: int = 0
    dice: tuple[tuple[int, int, int], ...] = ()
    pool_dice: int = 0
    successes: int = 0
    explode: int | None = None
    double: int | None = None
    cancel: bool = True


NO_EFFECTS = Effects()
"""A check nothing contextual applied to."""


@dataclass(frozen=True)
class CheckInput:
    """One check to resolve: the ask, the sheet's number, the dice tray and the limits."""

    request: CheckRequest
    number: CheckNumber
    tray: Tray
    limits: Limits
    bought: Bought = NOTHING_BOUGHT
    values: SheetValues | None = None
    """The roller's sheet (None for a stranger or a check with no character)."""
    effects: Effects = NO_EFFECTS
    """What the rows and entries `apply=` named add (004, contextual)."""

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


def read_dc(request: CheckRequest, ladder: Sequence[Rung] | None) -> CheckRequest | None:
    """The request with a `dc` written as a rung's name read as `difficulty=` that rung
    (SPEC §2.1); None when the `dc` is neither a whole number nor a rung of `ladder`
    (the check is refused `unknown-dc`)."""
    if request.dc_text is None:
        return request
    rung = named_rung(ladder, request.dc_text)
    if rung is None:
        return None
    return replace(request, dc_text=None, difficulty=rung.label)


def start_record(check: CheckInput) -> CheckRecord:
    """The parts of a record every kind writes the same way: skill, who, with, sheet extras."""
    number = check.number
    character = number.character
    who = character.name if character.name is not None else check.request.who
    return CheckRecord(
        skill=check.request.name,
        dc=0,
        name_key="save" if check.request.name_key == "save" else "skill",
        who=who,
        no_sheet=character.status == "stranger",
        with_=number.with_label,
        penalty=round(number.penalty),
        adjust=round(number.adjust_total),
        spend=check.bought.spend,
        use=check.bought.use,
        from_=list(check.effects.names),
    )
