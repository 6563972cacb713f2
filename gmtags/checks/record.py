"""The receipt of a rolled check, in the reference record layout (SPEC §3).

ENGINE-NOTES §1: `skill`, `dc`, `rolls`, `used`, `modifier`, `total`, `result`,
`mode`, `resolution`, `dice`, then the extras that apply in a fixed order
(`threshold`, `pool`, `who`, `with`, `bonus`, `spend`, `auto`, `use`,
`rerolled`, `penalty`, `difficulty`, `explode`, `double`, `complication`,
`adjust`, `reroll`, `reason`, `effects`, `from`, `automatic`), then what the
newer kinds add, then `outcome`. `bonus`, `adjust` and `effects` carry a sign;
`penalty` appears only below 0.

`mode` is written for dice-sum checks only: it is the one kind with advantage,
and SPEC §3's pool receipt has none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gmtags.tags.receipt import Pairs, Receipt

Result = str
"""success, failure, critical_success or critical_failure."""


def signed(value: int) -> str:
    """`+2`, `-1`, `0`."""
    return f"{value:+d}" if value else "0"


@dataclass
class CheckRecord:
    """Everything a rolled check reports; `attrs()` lays it out in receipt order."""

    skill: str
    dc: int
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
            ("skill", self.skill),
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
        optional: list[tuple[str, str | None, bool]] = [
            ("threshold", str(self.threshold), self.threshold is not None),
            ("pool", str(self.pool), self.pool is not None),
            ("who", self.who, self.who is not None),
            ("with", self.with_, self.with_ is not None),
            ("bonus", signed(self.bonus), self.bonus != 0),
            ("spend", self.spend, self.spend is not None),
            ("auto", str(self.auto), self.auto > 0),
            ("use", self.use, self.use is not None),
            ("rerolled", str(self.rerolled), self.rerolled > 0),
            ("penalty", str(self.penalty), self.penalty < 0),
            ("difficulty", self.difficulty, self.difficulty is not None),
            ("explode", str(self.explode), self.explode is not None),
            ("double", str(self.double), self.double is not None),
            ("complication", "true", self.complication),
            ("adjust", signed(self.adjust), self.adjust != 0),
            ("reroll", self.reroll, self.reroll is not None),
            ("effects", signed(self.effects), self.effects != 0),
            ("from", "; ".join(self.from_), bool(self.from_)),
            ("automatic", "true", self.automatic),
            ("against", self.against, self.against is not None),
            ("highest", "1", self.highest),
            ("zeroDice", "true", self.zero_dice),
            ("dark", str(self.dark), self.dark > 0),
            ("darkHighest", "true", self.dark_highest),
            ("darkOutcome", self.dark_outcome, self.dark_outcome is not None),
            ("unmodified", str(self.unmodified), self.unmodified is not None),
            ("exact", str(self.exact), self.exact is not None),
            ("symbols", self.symbols, self.symbols is not None),
            ("thrown", "|".join(self.thrown or []), self.thrown is not None),
            ("symbolDetails", self.symbol_details, self.symbol_details is not None),
            ("setback", str(self.setback), self.setback > 0),
            ("upgradeOwn", str(self.upgrade_own), self.upgrade_own > 0),
            ("outcome", self.outcome, self.outcome is not None),
        ]
        out += [(key, value) for key, value, present in optional if present]
        return tuple(out)

    def card(self) -> str:
        """One line for a person: `«Ward check (DC 8): [3, 5] +2 = 10. Success.»`."""
        faces = ", ".join(str(r) for r in self.rolls)
        if self.resolution == "successes":
            unit = "success" if self.total == 1 else "successes"
            arithmetic = f"[{faces}] → {self.total} {unit}"
        elif self.resolution == "sum" and sum(self.rolls) + self.modifier == self.total:
            modifier = f" {self.modifier:+d}" if self.modifier else ""
            arithmetic = f"[{faces}]{modifier} = {self.total}"
        else:
            arithmetic = f"[{faces}] → {self.total}"
        word = self.outcome or self.result.replace("_", " ").capitalize()
        who = f"{self.who}: " if self.who else ""
        card = f"«{who}{self.skill} check (DC {self.dc}): {arithmetic}. {word}.»"
        return " ".join(card.splitlines())  # one line, whatever a name holds (U+2028, …)

    def receipt(self, inputs: Pairs) -> Receipt:
        """The receipt of this check, for a tag whose model-written attributes were `inputs`."""
        return Receipt("skill_check", inputs, self.attrs(), self.card())
