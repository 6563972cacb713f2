"""A rolled check and its receipt's attributes, in the reference record layout (SPEC §3);
the engine writes the receipt and its card (`gmtags.engine.check_tag`).

ENGINE-NOTES §1: `skill`, `dc`, `rolls`, `used`, `modifier`, `total`, `result`,
`mode`, `resolution`, `dice`, then the extras that apply in a fixed order
(`threshold`, `pool`, `who`, `with`, `bonus`, `spend`, `auto`, `use`,
`rerolled`, `penalty`, `difficulty`, `explode`, `double`, `complication`,
`adjust`, `reroll`, `reason`, `effects`, `from`, `automatic`), then what the
newer kinds add, then `outcome`. `bonus`, `adjust` and `effects` carry a sign;
`penalty` appears only below 0.

`mode` is written for dice-sum checks only: it is the one kind with advantage,
and SPEC §3's pool receipt has none.

The check's name is written under the key that named it when that is `save=`
(issue 28: a saving throw stays a saving throw when its receipt is read
again), else as `skill=` (the reference layout; an `ability=` name means the
same under `skill=`). A check for a `who` that matched no card says
`sheet="none"` (SPEC §4: so the player sees why nothing came from a sheet),
among the extras after `automatic`, before the newer kinds' attributes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Pairs = tuple[tuple[str, str | None], ...]
"""A receipt's attributes in order (`gmtags.tags.card.Pairs`): the engine writes the receipt."""

Result = str
"""success, failure, critical_success or critical_failure."""


def signed(value: int) -> str:
    """`+2`, `-1`, `0`."""
    return f"{value:+d}" if value else "0"


@dataclass(slots=True)
class CheckRecord:
    """Everything a rolled check reports; `attrs()` lays it out in receipt order."""

    skill: str
    dc: int
    name_key: str = "skill"
    """The key the check's name is written under: `save` for a saving throw, else `skill`."""
    rolls: list[int] = field(default_factory=list)
    used: int = 0
    modifier: int = 0
    total: int = 0
    result: Result = "failure"
    mode: str | None = None
    resolution: str = "sum"
    dice: str = ""
    threshold: int | None = None
    pool: int | None = None
    who: str | None = None
    with_: str | None = None
    bonus: int = 0
    spend: str | None = None
    auto: int = 0
    use: str | None = None
    rerolled: int = 0
    penalty: int = 0
    difficulty: str | None = None
    explode: int | None = None
    double: int | None = None
    complication: bool = False
    adjust: int = 0
    reroll: str | None = None
    effects: int = 0
    from_: list[str] = field(default_factory=list)
    automatic: bool = False
    no_sheet: bool = False
    """The `who` matched no card: the check read nothing from a sheet (`sheet="none"`)."""
    against: str | None = None
    highest: bool = False
    zero_dice: bool = False
    dark: int = 0
    dark_highest: bool = False
    dark_outcome: str | None = None
    unmodified: int | None = None
    exact: int | None = None
    symbols: str | None = None
    thrown: list[str] | None = None
    symbol_details: str | None = None
    setback: int = 0
    upgrade_own: int = 0
    outcome: str | None = None
    outcome_text: str | None = None
    unrolled: bool = False
    """The check failed without throwing a die (an empty pool): it buys and pays nothing.
    Not written in the receipt."""

    def attrs(self) -> Pairs:
        """The receipt's attributes, in the reference order."""
        out: list[tuple[str, str | None]] = [
            (self.name_key, self.skill),
            ("dc", str(self.dc)),
            ("rolls", "|".join(str(r) for r in self.rolls)),
            ("used", str(self.used)),
            ("modifier", str(self.modifier)),
            ("total", str(self.total)),
            ("result", self.result),
        ]
        if self.mode is not None:
            out.append(("mode", self.mode))
        out += [("resolution", self.resolution), ("dice", self.dice)]
        # Issue 16: only the extras present are formatted (this runs for every check).
        add = out.append
        if self.threshold is not None:
            add(("threshold", str(self.threshold)))
        if self.pool is not None:
            add(("pool", str(self.pool)))
        if self.who is not None:
            add(("who", self.who))
        if self.with_ is not None:
            add(("with", self.with_))
        if self.bonus != 0:
            add(("bonus", signed(self.bonus)))
        if self.spend is not None:
            add(("spend", self.spend))
        if self.auto > 0:
            add(("auto", str(self.auto)))
        if self.use is not None:
            add(("use", self.use))
        if self.rerolled > 0:
            add(("rerolled", str(self.rerolled)))
        if self.penalty < 0:
            add(("penalty", str(self.penalty)))
        if self.difficulty is not None:
            add(("difficulty", self.difficulty))
        if self.explode is not None:
            add(("explode", str(self.explode)))
        if self.double is not None:
            add(("double", str(self.double)))
        if self.complication:
            add(("complication", "true"))
        if self.adjust != 0:
            add(("adjust", signed(self.adjust)))
        if self.reroll is not None:
            add(("reroll", self.reroll))
        if self.effects != 0:
            add(("effects", signed(self.effects)))
        if self.from_:
            add(("from", "; ".join(self.from_)))
        if self.automatic:
            add(("automatic", "true"))
        if self.no_sheet:
            add(("sheet", "none"))
        if self.against is not None:
            add(("against", self.against))
        if self.highest:
            add(("highest", "1"))
        if self.zero_dice:
            add(("zeroDice", "true"))
        if self.dark > 0:
            add(("dark", str(self.dark)))
        if self.dark_highest:
            add(("darkHighest", "true"))
        if self.dark_outcome is not None:
            add(("darkOutcome", self.dark_outcome))
        if self.unmodified is not None:
            add(("unmodified", str(self.unmodified)))
        if self.exact is not None:
            add(("exact", str(self.exact)))
        if self.symbols is not None:
            add(("symbols", self.symbols))
        if self.thrown is not None:
            add(("thrown", "|".join(self.thrown)))
        if self.symbol_details is not None:
            add(("symbolDetails", self.symbol_details))
        if self.setback > 0:
            add(("setback", str(self.setback)))
        if self.upgrade_own > 0:
            add(("upgradeOwn", str(self.upgrade_own)))
        if self.outcome is not None:
            add(("outcome", self.outcome))
        return tuple(out)

    def roll_words(self) -> str:
        """What was thrown and what it was read against: `3d10 ≥7 vs 2`, `1d100 ≤60`."""
        dice = self.dice or "no dice"
        if self.resolution == "against":
            sign = "≤" if self.against == "at-most" else "≥"
            modifier = f"{self.modifier:+d}" if self.modifier else ""
            return f"{dice}{modifier} {sign}{self.dc}"
        if self.resolution == "successes":
            return f"{dice} ≥{self.threshold} vs {self.dc}"
        if self.highest:
            return f"{dice} {'lowest' if self.zero_dice else 'highest'} vs {self.dc}"
        modifier = f"{self.modifier:+d}" if self.modifier else ""
        mode = f" with {self.mode}" if self.mode in ("advantage", "disadvantage") else ""
        return f"{dice}{modifier}{mode} vs {self.dc}"

    def rolled_words(self) -> str:
        """The faces thrown, in order, those not kept struck through: `~~15~~, 18`."""
        if not self.rolls:
            return "no dice"
        kept = self.kept()
        return ", ".join(
            str(face) if keep else f"~~{face}~~"
            for face, keep in zip(self.rolls, kept, strict=True)
        )

    def kept(self) -> list[bool]:
        """Which thrown dice the result kept, read from the faces and `used` (SPEC §3)."""
        rolls, used = self.rolls, self.used
        every = [True] * len(rolls)
        if self.resolution == "successes":
            return every
        if self.highest or (self.resolution == "against" and len(rolls) > 1):
            if used not in rolls:
                return every
            index = rolls.index(used)
            return [i == index for i in range(len(rolls))]
        half = len(rolls) // 2
        if self.mode in ("advantage", "disadvantage") and half and len(rolls) == 2 * half:
            if sum(rolls[:half]) == used:
                return [True] * half + [False] * half
            if sum(rolls[half:]) == used:
                return [False] * half + [True] * half
        return every

    def score_words(self) -> str | None:
        """The total (`= 11`, read on from the faces) or the successes (`2 successes`); none
        for roll-against."""
        if self.resolution == "successes":
            return f"{self.total} {'success' if self.total == 1 else 'successes'}"
        if self.resolution == "against":
            return None
        return f"= {self.total}"

    def extras(self) -> list[str]:
        """What the check spent or drew besides its dice."""
        out: list[str] = []
        if self.spend:
            out.append(f"spent {self.spend}")
        if self.complication:
            out.append("complication")
        if self.no_sheet:
            out.append("no sheet")
        return out
